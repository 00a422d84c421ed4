/**
 * Step 6 (what it shares with the brain's proxy.calls.forward is in calls/upstream.ts): stream the call to the connector's API with the owner's credential, through
 * http-proxy-middleware (one proxy per connector, its base URL the target): `{baseUrl}/{rest of
 * the path}?{query}`, path and query as the caller sent them (still percent-encoded), the body
 * and the answer streamed both ways, never buffered. The caller's own headers are filtered
 * (domain/header-policy.ts), the connector's required headers added when absent, and the
 * credential set last, so nothing the caller sends can replace it. Redirects are passed on
 * unfollowed: following one could carry the credential to another host.
 *
 * Failures become the error body: 504 UPSTREAM_TIMEOUT when the service has not started its
 * answer within UPSTREAM_TIMEOUT_MS, 413 when a body without Content-Length grows past
 * BODY_LIMIT_BYTES (answered while the client may still be sending: answerWhileReceiving),
 * 502 UPSTREAM_ERROR when it cannot be reached or breaks off before answering;
 * once the answer has started, a failure can only cut the connection. The timeout covers the wait
 * for the answer's head only: a large answer to a slow reader is not cut off.
 *
 * Answers refused in place of the service's (refuseAnswer): its own 429 becomes 429
 * UPSTREAM_RATE_LIMITED with its Retry-After normalised, and an answer whose Content-Length is
 * over PROXY_MAX_RESPONSE_BYTES is 502 UPSTREAM_RESPONSE_TOO_LARGE, before anything of it is
 * sent. An answer without a Content-Length that grows past the limit while it streams is cut
 * (limitAnswer): its head is sent already, so the connection is closed before the end of the
 * body and the client sees a broken answer (a chunked body without its last chunk), never a
 * complete-looking one.
 *
 * last_used_at is recorded when the call is made (written in batches, calls/last-used.ts), without
 * making the caller wait. What became of every call forwarded (calls/upstream.ts' CallRecord) is
 * told to the gateway for its audit row of the request (report-call.ts, docs/adr/0069) when the
 * answer's head arrives or the call fails, before anything of the answer is written.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AppError } from '@pag/contracts';
import { toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { FORWARDING_OPTIONS } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import type { LastUsedBatch } from '../calls/last-used.ts';
import type { TokenRefresher } from '../calls/token-refresh.ts';
import {
  CallRecord,
  credentialHeader,
  declaredTooLarge,
  isAddressRefusal,
  upstreamError,
  upstreamRateLimited,
  upstreamTarget,
  upstreamTooLarge,
} from '../calls/upstream.ts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { isCallerOnlyHeader, isOriginScopedHeader } from '../domain/header-policy.ts';
import { isOAuthConnector } from '../oauth/provider-client.ts';
import { forwardedCall } from './report-call.ts';
import { state } from './state.ts';

export interface ForwardOptions {
  refresher: TokenRefresher;
  lastUsed: LastUsedBatch;
  /** How long a connected service may take to start its answer; then 504. */
  timeoutMs: number;
  bodyLimitBytes: number;
  /** The largest answer passed back (PROXY_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  logger: Logger;
}

/** Per request, what the proxy events need and must not put on the request itself. */
interface InFlight {
  response: Response;
  connector: ConnectorDefinition;
  credential: string;
  tokenId: string;
  accountId: string;
  failure?: 'timeout' | 'too-large';
  record: CallRecord;
}

export function forwardUpstream(options: ForwardOptions): RequestHandler {
  const inFlight = new WeakMap<IncomingMessage, InFlight>();
  // One proxy per connector, made at its first call: an owner's connector is a new object each
  // time the owner's connectors change, and its proxy goes with it.
  const proxies = new WeakMap<ConnectorDefinition, ProxyHandler<IncomingMessage, ServerResponse>>();
  const proxyFor = (connector: ConnectorDefinition) => {
    let proxy = proxies.get(connector);
    if (proxy === undefined) {
      proxy = connectorProxy(connector, inFlight, options);
      proxies.set(connector, proxy);
    }
    return proxy;
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const current = state(res);
    const { connector, credential, identity } = current;
    const proxy = connector === undefined ? undefined : proxyFor(connector);
    if (
      connector === undefined ||
      credential === undefined ||
      identity === undefined ||
      proxy === undefined
    ) {
      next(new Error('forwardUpstream ran before the connection was found'));
      return;
    }
    // The headers that go upstream, as a new object: deleting the caller's own from the parsed
    // ones turned that object into a slow dictionary for httpxy's copy of it (docs/adr/0074).
    const forwarded: IncomingHttpHeaders = {};
    for (const name in req.headers) {
      if (!isCallerOnlyHeader(name)) forwarded[name] = req.headers[name];
    }
    for (const name in connector.defaultHeaders) forwarded[name] ??= connector.defaultHeaders[name];
    req.headers = forwarded;
    const query = req.originalUrl.indexOf('?');
    const rest = `/${current.params?.path ?? ''}`;
    req.url = `${rest}${query === -1 ? '' : req.originalUrl.slice(query)}`;
    const call: InFlight = {
      response: res,
      connector,
      credential: credential.value,
      tokenId: credential.tokenId,
      accountId: identity.accountId,
      // Its facts go to the gateway's audit row of the request (report-call.ts).
      record: new CallRecord(
        { record: (forwarded) => current.report?.(forwardedCall(forwarded)) },
        {
          requestId: current.requestId,
          accountId: identity.accountId,
          clientId: identity.clientId,
          agentId: identity.agentId,
          service: connector.name,
          method: req.method,
          ...upstreamTarget(connector, rest),
        },
      ),
    };
    inFlight.set(req, call);
    res.once('close', () => {
      inFlight.delete(req);
      // Neither an answer nor a failure: the client went away while the service was being asked.
      call.record.failed('CLIENT_CLOSED_REQUEST');
    });
    proxy(req, res, next).catch(next);
    // Recorded when the call is made; the caller never waits for this write.
    options.lastUsed.used(identity.accountId, credential.tokenId);
  };
}

function connectorProxy(
  connector: ConnectorDefinition,
  inFlight: WeakMap<IncomingMessage, InFlight>,
  options: ForwardOptions,
): ProxyHandler<IncomingMessage, ServerResponse> {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    // Parsed once: a string target is parsed into a URL on every request (httpxy's _createProxyFn).
    target: new URL(connector.baseUrl),
    ...FORWARDING_OPTIONS,
    plugins: [proxyEventsPlugin],
    // An owner's connector: connections to checked public addresses only (connectors/registry.ts).
    ...(connector.publicOnly === null ? {} : { agent: connector.publicOnly.agent }),
    on: {
      proxyReq: (proxyReq, req) => {
        const call = inFlight.get(req);
        if (call === undefined) return void proxyReq.destroy();
        proxyReq.setHeader(...credentialHeader(call.connector, call.credential));
        proxyReq.setTimeout(options.timeoutMs, () => {
          call.failure = 'timeout';
          proxyReq.destroy();
        });
        if (req.headers['content-length'] === undefined)
          limitBody(req, proxyReq, call, options.bodyLimitBytes);
      },
      proxyRes: (proxyRes, req) => {
        // The answer has started: from here its pace is the client's business too.
        proxyRes.socket?.setTimeout(0);
        // Hop-by-hop (RFC 9110 §7.6.1): the service closing its connection to us says nothing
        // about the caller's. httpxy copies it otherwise, and handed over in process
        // (docs/adr/0069) no gateway hop would drop it: a service's `close` would close the client's.
        // What httpxy copies is a new object of the kept headers, not deletes on the parsed ones
        // (a delete makes that object a slow dictionary for httpxy's pass over it: docs/adr/0074).
        const kept: IncomingHttpHeaders = {};
        for (const name in proxyRes.headers) {
          if (name !== 'connection' && !isOriginScopedHeader(name)) kept[name] = proxyRes.headers[name];
        }
        proxyRes.headers = kept;
        const call = inFlight.get(req);
        if (call === undefined) return;
        proxyRes.headers['x-request-id'] = state(call.response).requestId;
        if (declaredTooLarge(proxyRes.headers['content-length'], options.maxResponseBytes)) {
          call.record.failed('UPSTREAM_RESPONSE_TOO_LARGE');
          return refuseAnswer(proxyRes, call, upstreamTooLarge(connector, options.maxResponseBytes));
        }
        const status = proxyRes.statusCode ?? 0;
        call.record.answered(status, status === 429 ? 'UPSTREAM_RATE_LIMITED' : null);
        // The provider refused a token that had not expired: the next call refreshes it. This
        // call's body has streamed away, so it is not repeated; the agent sees the 401 and retries.
        if (proxyRes.statusCode === 401 && isOAuthConnector(connector)) {
          options.refresher
            .rejected(call.accountId, connector, call.tokenId)
            .catch((error: unknown) =>
              options.logger.warn(
                { err: error, service: connector.name },
                'rejected token not marked for refresh',
              ),
            );
        }
        if (proxyRes.statusCode === 429)
          return refuseAnswer(
            proxyRes,
            call,
            upstreamRateLimited(connector, proxyRes.headers['retry-after']),
          );
        if (proxyRes.headers['content-length'] === undefined) limitAnswer(proxyRes, call, options);
      },
      error: (error, req, res) => {
        const call = inFlight.get(req);
        const failure = isAddressRefusal(error) ? 'refused' : (call?.failure ?? 'broken');
        const appError = upstreamError(connector, failure, options, error);
        call?.record.failed(appError.code);
        if (appError.code === 'UPSTREAM_ERROR') {
          options.logger.warn(
            { err: error, service: connector.name, requestId: call && state(call.response).requestId },
            'connected service call failed',
          );
        }
        if (!('writeHead' in res) || res.headersSent || call === undefined) return void res.destroy();
        const body = JSON.stringify(toErrorBody(appError, state(call.response).requestId));
        if (call.failure === 'too-large') return answerWhileReceiving(req, res, appError.status, body);
        res.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(body);
      },
    },
  });
}

/**
 * Our error body in place of the service's answer. httpxy (http-proxy-middleware's engine) emits
 * `proxyRes` before it copies the head and pipes the body, and does neither when the response has
 * already ended (`res.finished`, checked right after the event: httpxy's dist/index.mjs), so
 * ending it here is the supported way to answer instead. A 429's short body is read off so the
 * connection to the service can be kept; an oversized one is not read at all.
 */
function refuseAnswer(proxyRes: IncomingMessage, call: InFlight, error: AppError): void {
  const requestId = state(call.response).requestId;
  call.response.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    ...error.headers,
  });
  call.response.end(JSON.stringify(toErrorBody(error, requestId)));
  if (error.code === 'UPSTREAM_RATE_LIMITED') proxyRes.resume();
  else proxyRes.destroy();
}

/**
 * An answer of unknown length is counted as it streams; past the limit the service's answer is
 * destroyed, which httpxy turns into destroying the client's (its `close` handler: an incomplete
 * proxyRes destroys res), so the client's connection closes before the answer's end.
 */
function limitAnswer(proxyRes: IncomingMessage, call: InFlight, options: ForwardOptions): void {
  let received = 0;
  proxyRes.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received <= options.maxResponseBytes || proxyRes.destroyed) return;
    options.logger.warn(
      {
        service: call.connector.name,
        requestId: state(call.response).requestId,
        code: 'UPSTREAM_RESPONSE_TOO_LARGE',
        limitBytes: options.maxResponseBytes,
      },
      'connected service answer cut at PROXY_MAX_RESPONSE_BYTES',
    );
    proxyRes.destroy();
  });
}

/** How long a client still sending a refused body is read (and ignored) before the connection closes. */
const LINGER_MS = 5_000;

/**
 * The answer to a body refused while the client is still sending it. The client must be able to
 * read it: a socket closed while it writes ends in a reset that throws the answer away (RFC 9112
 * §9.6), and Node closes at once after an answer to a request with `Connection: close`, which
 * http-proxy puts on every chunked request it forwards (the gateway's included). So the answer is
 * sent whole at once and the rest of the body read off; the response ends, and the connection
 * closes, only when the client has stopped sending or after LINGER_MS.
 */
function answerWhileReceiving(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  res.write(body);
  if (req.readableEnded || req.destroyed) return void res.end();
  const end = () => {
    clearTimeout(linger);
    req.off('end', end).off('close', end);
    res.end();
  };
  const linger = setTimeout(end, LINGER_MS).unref();
  req.once('end', end).once('close', end);
  req.resume();
}

/** A body without a declared length is counted as it streams; past the limit the call is cut. */
function limitBody(req: IncomingMessage, proxyReq: ClientRequest, call: InFlight, limit: number): void {
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit && call.failure === undefined) {
      call.failure = 'too-large';
      proxyReq.destroy();
    }
  });
}
