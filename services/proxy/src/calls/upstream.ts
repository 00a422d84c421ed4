/**
 * What every call to a connected service has in common, however it came in (the HTTP pipeline's
 * streamed forwarding, http/forward-upstream.ts, or the brain's buffered proxy.calls.forward,
 * calls/forward-call.ts): where it goes, the headers the connector needs, the credential set last
 * (so a caller cannot supply its own), the errors of a failed call, and its one `proxy.call`
 * audit event.
 */
import { AppError } from '@pag/contracts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { retryAfterSeconds } from '../domain/retry-after.ts';
import type { CallAudit, ForwardedCall } from './audit-call.ts';

/** Where a call's record goes: the `proxy.call` event (the brain's calls), or the gateway's row (HTTP, in process). */
export type CallSink = Pick<CallAudit, 'record'>;

/** The connected service's host and the path called there (for the audit event: no query). */
export function upstreamTarget(
  connector: ConnectorDefinition,
  restOfPath: string,
): { host: string; path: string } {
  let base = bases.get(connector);
  if (base === undefined) {
    const url = new URL(connector.baseUrl);
    base = { host: url.host, path: url.pathname.replace(/\/+$/, '') };
    bases.set(connector, base);
  }
  return { host: base.host, path: `${base.path}${restOfPath}` };
}

/** Each connector's host and base path, parsed once (a connector is a new object when it changes). */
const bases = new WeakMap<ConnectorDefinition, { host: string; path: string }>();

/** The decrypted credential as the connector takes it: a bearer token or its own header. */
export function credentialHeader(connector: ConnectorDefinition, credential: string): [string, string] {
  return connector.credential.type === 'bearer'
    ? ['authorization', `Bearer ${credential}`]
    : [connector.credential.name.toLowerCase(), credential];
}

export type UpstreamFailure = 'timeout' | 'too-large' | 'broken' | 'refused';

/**
 * An owner's connector whose host resolved to an address that is not public (kit's checkedLookup
 * refused to connect): nothing was sent. By name: node's errors may come from another realm.
 */
export function isAddressRefusal(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Object; depth += 1) {
    const { name, refusedAddress, cause } = current as {
      name?: string;
      refusedAddress?: boolean;
      cause?: unknown;
    };
    if (name === 'PublicFetchError' && refusedAddress === true) return true;
    current = cause;
  }
  return false;
}

export function upstreamError(
  connector: ConnectorDefinition,
  failure: UpstreamFailure,
  limits: { timeoutMs: number; bodyLimitBytes: number },
  cause: unknown,
): AppError {
  if (failure === 'timeout') {
    return new AppError(
      'UPSTREAM_TIMEOUT',
      `${connector.displayName} did not start its answer within ${limits.timeoutMs} ms.`,
      { cause, expose: true, hint: `${connector.displayName} is slow or down; retry later.` },
    );
  }
  if (failure === 'refused') {
    return new AppError(
      'UPSTREAM_ADDRESS_REFUSED',
      `${connector.displayName} resolves to an address that is not public; nothing was sent.`,
      { cause, expose: true },
    );
  }
  if (failure === 'too-large') {
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      `The request body exceeds the limit of ${limits.bodyLimitBytes} bytes.`,
      { cause },
    );
  }
  return new AppError(
    'UPSTREAM_ERROR',
    `${connector.displayName} could not be reached or broke off the answer.`,
    {
      cause,
      expose: true,
    },
  );
}

/**
 * The connected service's own 429, passed on as ours with its Retry-After normalised
 * (domain/retry-after.ts): distinct from USAGE_LIMIT_EXCEEDED and RATE_LIMITED, which are this
 * gateway's limits, so an agent knows whom it is waiting for.
 */
export function upstreamRateLimited(
  connector: ConnectorDefinition,
  retryAfter: string | string[] | undefined,
): AppError {
  const seconds = retryAfterSeconds(retryAfter);
  return new AppError(
    'UPSTREAM_RATE_LIMITED',
    `${connector.displayName} refused the call for its own rate limit; retry after ${seconds} s.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

/** An answer larger than PROXY_MAX_RESPONSE_BYTES (known from its Content-Length, or counted). */
export function upstreamTooLarge(connector: ConnectorDefinition, limitBytes: number): AppError {
  return new AppError(
    'UPSTREAM_RESPONSE_TOO_LARGE',
    `${connector.displayName}'s answer exceeds the limit of ${limitBytes} bytes.`,
    { expose: true },
  );
}

/** A Content-Length over the limit: the answer is refused before any of it is passed on. */
export function declaredTooLarge(contentLength: string | undefined, limitBytes: number): boolean {
  return contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > limitBytes;
}

/** The audit event's facts known before the call is made. */
export type CallFacts = Omit<ForwardedCall, 'status' | 'decision' | 'reason' | 'latencyMs'>;

/**
 * The record of one call (the `proxy.call` event of the brain's, the gateway's row of an HTTP
 * one: http/report-call.ts), recorded once: with the upstream status when it answered
 * (the call was made: `allowed`, whatever the status), else with the reason it did not (a body
 * refused for its size is `denied`, any other failure `error`). The latency runs from the call.
 */
export class CallRecord {
  readonly #audit: CallSink;
  #facts: CallFacts | undefined;
  readonly #sentAt = process.hrtime.bigint();

  constructor(audit: CallSink, facts: CallFacts) {
    this.#audit = audit;
    this.#facts = facts;
  }

  /** `reason`: the code the answer was replaced with (the service's 429 is UPSTREAM_RATE_LIMITED). */
  answered(status: number, reason: string | null = null): void {
    this.#record(status, reason);
  }

  failed(reason: string): void {
    this.#record(null, reason);
  }

  #record(status: number | null, reason: string | null): void {
    const facts = this.#facts;
    if (facts === undefined) return;
    this.#facts = undefined;
    const decision = status !== null ? 'allowed' : reason === 'PAYLOAD_TOO_LARGE' ? 'denied' : 'error';
    const latencyMs = Number(process.hrtime.bigint() - this.#sentAt) / 1e6;
    this.#audit.record({ ...facts, status, decision, reason, latencyMs });
  }
}
