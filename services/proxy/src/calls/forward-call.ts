/**
 * proxy.calls.forward's core: one call the brain makes for a trigger run, as the run's agent with
 * the run's scopes, answered whole (not streamed) to the bus. The decisions are the HTTP path's:
 *
 * 1. the path must be one the proxy route forwards (the contracts' matchRoute on
 *    /api/v1/services/:service/*path: no dot segments or encoded slashes), else 400 naming `path`;
 * 2. the scope: the contracts' requiredScope for that route, method and path (the connector
 *    decides read or write, sub-scopes by the first segment), granted by the request's scopes or
 *    403 INSUFFICIENT_SCOPE naming it: exactly what kit's checkScope asks of a token over HTTP;
 * 3. no method change (calls/method-change.ts): override parameters, a body on GET;
 * 4. the connector and the account's credential (calls/connection.ts): 404 / 409;
 * 5. the call (calls/upstream.ts): the connector's headers, the credential set last, nothing else
 *    of the caller's (a bus caller sends no headers at all), redirects never followed (node's
 *    http client does not follow them), the whole call within UPSTREAM_TIMEOUT_MS (504
 *    UPSTREAM_TIMEOUT; nothing streams here, so the timer runs until the body is read), 502
 *    UPSTREAM_ERROR when the service cannot be reached or breaks off, the service's own 429 as 429
 *    UPSTREAM_RATE_LIMITED (its Retry-After in the message), an answer declaring more than
 *    PROXY_MAX_RESPONSE_BYTES as 502 UPSTREAM_RESPONSE_TOO_LARGE, one `proxy.call` audit event,
 *    last_used_at written in the background.
 *
 * The answer body is read up to PROXY_CALL_BODY_MAX_BYTES (then the connection is dropped),
 * decoded as UTF-8, and cut so that it takes at most PROXY_CALL_BODY_MAX_BYTES as JSON text in the
 * reply (domain/json-text.ts); `truncated` says when anything was left out. The bound is on the
 * encoded size because that is what travels: a binary or control-character body grows up to six
 * times in JSON, and a reply past nats-server's max_payload (1 MiB) would never arrive.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ProxyCallResult } from '@pag/contracts';
import {
  AppError,
  insufficientScope,
  matchRoute,
  PROXY_CALL_BODY_MAX_BYTES,
  type ProxyCallRequest,
  requiredScope,
  scopeGrants,
} from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { z } from 'zod';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { jsonTextPrefix } from '../domain/json-text.ts';
import { isOAuthConnector } from '../oauth/provider-client.ts';
import type { VaultStore } from '../store/vault-store.ts';
import type { CallAudit } from './audit-call.ts';
import type { Credential } from './connection.ts';
import { connectorNamed, credentialOf } from './connection.ts';
import { methodChange } from './method-change.ts';
import type { TokenRefresher } from './token-refresh.ts';
import {
  CallRecord,
  credentialHeader,
  declaredTooLarge,
  isAddressRefusal,
  upstreamError,
  upstreamRateLimited,
  upstreamTarget,
  upstreamTooLarge,
} from './upstream.ts';

export interface ForwardCallDeps {
  /** The connectors of the call's account (connectors/registry.ts). */
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  store: VaultStore;
  refresher: TokenRefresher;
  audit: CallAudit;
  /** UPSTREAM_TIMEOUT_MS: the whole call, answer body included. */
  timeoutMs: number;
  bodyLimitBytes: number;
  /** PROXY_MAX_RESPONSE_BYTES: an answer declaring more is refused unread. */
  maxResponseBytes: number;
}

/** A path as it appears in a URL: RFC 3986 path characters and %XX escapes, nothing else. */
const URL_PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

export async function forwardCall(
  call: z.output<typeof ProxyCallRequest>,
  context: { requestId: string; logger: Logger },
  deps: ForwardCallDeps,
): Promise<ProxyCallResult> {
  const rest = call.path.replace(/^\/+/, '');
  const match = URL_PATH.test(rest)
    ? matchRoute(call.method, `/api/v1/services/${call.service}/${rest}`)
    : null;
  if (
    match === null ||
    !('route' in match) ||
    match.route.service !== 'proxy' ||
    match.route.subject !== null
  ) {
    throw new AppError(
      'INVALID_REQUEST',
      `path: ${JSON.stringify(call.path.slice(0, 200))} is not a path the proxy forwards (URL path characters, no dot segments; the query goes in query).`,
    );
  }
  const needed = requiredScope(match.route, match.params, call.method);
  if (needed !== null && !scopeGrants(call.scopes, needed)) throw insufficientScope(needed);
  const query = new URLSearchParams(call.query).toString();
  const refusal = methodChange(call.service, call.method, query, call.body !== null);
  if (refusal !== null) throw refusal;
  const connector = connectorNamed(deps.connectors, call.service);
  const credential = await credentialOf(deps, call.accountId, connector, context.requestId);
  const result = await callWith(credential, call, rest, query, connector, context, deps);
  // The provider refused the token although it had not expired: refresh it once and call again
  // (the body is in hand, so the call can be repeated; the HTTP path streams and cannot).
  if (
    result.status === 401 &&
    isOAuthConnector(connector) &&
    (await deps.refresher.rejected(call.accountId, connector, credential.tokenId))
  ) {
    const renewed = await credentialOf(deps, call.accountId, connector, context.requestId);
    return callWith(renewed, call, rest, query, connector, context, deps);
  }
  return result;
}

async function callWith(
  credential: Credential,
  call: z.output<typeof ProxyCallRequest>,
  rest: string,
  query: string,
  connector: ConnectorDefinition,
  context: { requestId: string; logger: Logger },
  deps: ForwardCallDeps,
): Promise<ProxyCallResult> {
  const target = upstreamTarget(connector, `/${rest}`);
  const record = new CallRecord(deps.audit, {
    requestId: context.requestId,
    accountId: call.accountId,
    clientId: call.clientId,
    agentId: call.agentId,
    service: connector.name,
    method: call.method,
    ...target,
  });
  const url = new URL(`${connector.baseUrl.replace(/\/+$/, '')}/${rest}${query === '' ? '' : `?${query}`}`);
  const body = call.body === null ? null : Buffer.from(call.body, 'utf8');
  const headers: Record<string, string> = { ...connector.defaultHeaders };
  if (body !== null) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  const [name, value] = credentialHeader(connector, credential.value);
  headers[name] = value;
  deps.store.touch(call.accountId, credential.tokenId);
  try {
    return await send(url, call.method, headers, body, deps.timeoutMs, record, { connector, ...deps });
  } catch (error) {
    // The service answered, and its answer is refused (its rate limit, its size): already recorded.
    if (error instanceof AppError) throw error;
    const appError = upstreamError(
      connector,
      error instanceof DOMException && error.name === 'TimeoutError'
        ? 'timeout'
        : isAddressRefusal(error)
          ? 'refused'
          : 'broken',
      deps,
      error,
    );
    record.failed(appError.code);
    if (appError.code === 'UPSTREAM_ERROR')
      context.logger.warn({ err: error, service: connector.name }, 'connected service call failed');
    throw appError;
  }
}

async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  timeoutMs: number,
  record: CallRecord,
  limits: { connector: ConnectorDefinition; maxResponseBytes: number },
): Promise<ProxyCallResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    // An owner's connector: the agent connects to checked public addresses only.
    const agent = limits.connector.publicOnly?.agent;
    const req = request(url, { method, headers, signal, ...(agent === undefined ? {} : { agent }) }, resolve);
    req.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    req.end(body ?? undefined);
  });
  if (declaredTooLarge(response.headers['content-length'], limits.maxResponseBytes)) {
    response.destroy();
    record.failed('UPSTREAM_RESPONSE_TOO_LARGE');
    throw upstreamTooLarge(limits.connector, limits.maxResponseBytes);
  }
  record.answered(response.statusCode ?? 0);
  if (response.statusCode === 429) {
    response.resume();
    throw upstreamRateLimited(limits.connector, response.headers['retry-after']);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > PROXY_CALL_BODY_MAX_BYTES) {
        truncated = true;
        break;
      }
    }
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    // Leaving the loop early destroys the response: the rest is not read.
    response.destroy();
  }
  const whole = Buffer.concat(chunks);
  const text = whole.subarray(0, PROXY_CALL_BODY_MAX_BYTES).toString('utf8');
  const kept = jsonTextPrefix(text, PROXY_CALL_BODY_MAX_BYTES);
  return {
    status: response.statusCode ?? 0,
    contentType: response.headers['content-type'] ?? null,
    body: kept,
    truncated: truncated || kept.length < text.length,
  };
}
