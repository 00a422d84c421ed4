/**
 * The one catalogue of error codes and the one error class every service throws.
 *
 * Callers test `code`, never message text. `expose` follows oidc-provider's rule: details of a
 * status below 500 are the client's to see; 5xx details are masked by each app's error handler.
 */
import { z } from 'zod';

/**
 * Every error code with its HTTP status and what a client should do next. A code with
 * `retryAfterSeconds` is a passing state (a replica restarting): its answers carry Retry-After, so
 * clients know to send the request again (docs/adr/0057).
 */
export const ErrorCatalogue = {
  ROUTE_NOT_FOUND: {
    status: 404,
    hint: 'GET /api/v1/ lists every endpoint; paths start with /api/v1 exactly once.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    hint: 'See the Allow header or GET /api/v1/ for the methods of this path.',
  },
  NOT_FOUND: {
    status: 404,
    hint: 'Check the identifier; it may belong to another account or never have existed.',
  },
  INVALID_REQUEST: {
    status: 400,
    hint: 'Fix the fields named in the message; /openapi.json has every body schema.',
  },
  INVALID_TEXT: {
    status: 400,
    hint: 'Send text as valid Unicode (UTF-8) without NUL characters (U+0000) or unpaired surrogates.',
  },
  MALFORMED_JSON: { status: 400, hint: 'Send a valid JSON document with Content-Type: application/json.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, hint: 'Send the body as JSON with Content-Type: application/json.' },
  PAYLOAD_TOO_LARGE: { status: 413, hint: 'Send a smaller body; the limit is stated in the message.' },
  INVALID_SCOPE: {
    status: 400,
    hint: 'Scopes are space-separated names such as knowledge, chat or services:github:read; GET /api/v1/capabilities lists them.',
  },
  METHOD_OVERRIDE_REFUSED: {
    status: 400,
    hint: 'Send the call with its own HTTP method; a method override in the query (_method and the like) is never forwarded.',
  },
  BODY_NOT_ALLOWED: {
    status: 400,
    hint: 'GET and HEAD carry no body: put the arguments in the query, or use the method that takes a body.',
  },
  TOKEN_IN_QUERY: {
    status: 400,
    hint: 'Send the token in the Authorization header: Authorization: Bearer <token>.',
  },
  AUTHENTICATION_REQUIRED: {
    status: 401,
    hint: 'Send Authorization: Bearer <token>. Without a token, POST /api/v1/handshakes and poll its status until approved.',
  },
  INVALID_TOKEN: {
    status: 401,
    hint: 'The token is unknown, expired or revoked. Ask the owner for a new one through POST /api/v1/handshakes.',
  },
  MALFORMED_TOKEN: {
    status: 401,
    hint: 'Send the header as "Authorization: Bearer <token>": one space, then the token exactly as issued (ours read pag_<kind>_ and 65 characters of A-Z a-z 0-9 _ -), nothing else.',
  },
  TOKEN_EXPIRED: {
    status: 401,
    hint: 'The token has expired: get a new one the way you got this one (refresh an OAuth token, sign a new device assertion, or start a new handshake: POST /api/v1/handshakes).',
  },
  TOKEN_REVOKED: {
    status: 401,
    hint: 'The owner revoked this token: do not retry with it; ask the owner for access again.',
  },
  CROSS_SITE_REQUEST: {
    status: 403,
    hint: 'Submit the form from a page of this gateway; state-changing requests from other sites are refused.',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    hint: 'Ask the owner for a token that grants the scope named in the message.',
  },
  AGENT_REQUIRED: {
    status: 403,
    hint: 'Use a token issued to an agent (a dashboard token, an approved handshake or device): what it creates runs as that agent.',
  },
  DEVICE_PENDING_APPROVAL: {
    status: 403,
    hint: 'The owner must approve this device at /dashboard/devices first.',
  },
  HANDSHAKE_PROOF_MISMATCH: {
    status: 403,
    hint: 'Send in Handshake-Verifier the code verifier whose S256 hash you gave as codeChallenge when creating this handshake; only the agent that created it can collect its token. Without the verifier, poll the status without the header.',
  },
  GATEWAY_ONLY: {
    status: 403,
    hint: 'Internal services answer the gateway only; send the request to the gateway (PUBLIC_URL).',
  },
  PLAN_REQUIRED: { status: 403, hint: 'This feature needs a Pro or Heavy plan; the owner can upgrade.' },
  SERVICE_NOT_CONNECTED: {
    status: 409,
    hint: 'The owner must connect (or reconnect) this service before agents can call it; GET /api/v1/services lists the connected ones.',
  },
  CONFLICT: {
    status: 409,
    hint: 'The resource already exists or changed meanwhile; read it again and retry.',
  },
  USAGE_LIMIT_EXCEEDED: {
    status: 429,
    hint: 'Wait until the time given in Retry-After; the owner can raise the limit.',
  },
  RATE_LIMITED: { status: 429, hint: 'Too many requests; wait for the time given in Retry-After.' },
  CLIENT_CLOSED_REQUEST: {
    status: 499,
    hint: 'The caller went away before the answer was complete; nobody reads this answer.',
  },
  INTERNAL_ERROR: { status: 500, hint: 'Retry later; quote the requestId if it persists.' },
  UPSTREAM_ERROR: { status: 502, hint: 'The connected service failed; retry later.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    hint: 'The service behind this endpoint is not running or is restarting; retry after the time given in Retry-After.',
    retryAfterSeconds: 1,
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    hint: 'The service behind this endpoint did not answer in time; retry later.',
  },
  CONNECTOR_NOT_CONFIGURED: {
    status: 409,
    hint: 'No OAuth client for the connector: the owner enters their own on /dashboard/services, or the operator sets one (CONNECTOR_CLIENTS).',
  },
  CONNECT_FAILED: {
    status: 400,
    hint: 'The connect flow expired, was used already, came from another session or was declined; start it again from /dashboard/services.',
  },
  UPSTREAM_RATE_LIMITED: {
    status: 429,
    hint: "The connected service's own rate limit, not this gateway's: wait for the time given in Retry-After.",
  },
  UPSTREAM_RESPONSE_TOO_LARGE: {
    status: 502,
    hint: "The connected service's answer exceeds the proxy's limit (stated in the message); ask for less, e.g. a smaller page.",
  },
  UPSTREAM_ADDRESS_REFUSED: {
    status: 502,
    hint: 'A connector the owner defined resolves to a private, loopback or link-local address; nothing was sent. The owner corrects its URLs on /dashboard/services.',
  },
} as const satisfies Record<string, { status: number; hint: string; retryAfterSeconds?: number }>;

export type ErrorCode = keyof typeof ErrorCatalogue;
export const errorCodes = Object.keys(ErrorCatalogue) as ErrorCode[];

export interface AppErrorOptions {
  cause?: unknown;
  hint?: string;
  /** Overrides the catalogue status, for the rare code used with two statuses. */
  status?: number;
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  headers?: Record<string, string>;
  /** Whether the message may reach the client; defaults to status < 500. */
  expose?: boolean;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly hint: string;
  readonly headers: Record<string, string>;
  /** Whether the message may be shown to the client (by default never for 5xx, as in oidc-provider). */
  readonly expose: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ErrorCatalogue[code].status;
    this.hint = options.hint ?? ErrorCatalogue[code].hint;
    this.headers = withRetryAfter(code, options.headers ?? {});
    this.expose = options.expose ?? this.status < 500;
  }
}

/** The catalogue's Retry-After for a passing state, unless the thrower set one. */
function withRetryAfter(code: ErrorCode, headers: Record<string, string>): Record<string, string> {
  const entry = ErrorCatalogue[code];
  if (!('retryAfterSeconds' in entry)) return headers;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) return headers;
  return { ...headers, 'Retry-After': String(entry.retryAfterSeconds) };
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ErrorCatalogue, value);
}

/** The wire shape of every error response body. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string().optional(),
    requestId: z.string(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Builds the response body; 5xx messages are replaced so internals never leak. */
export function toErrorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.expose ? error.message : 'The request could not be completed.',
      hint: error.hint,
      requestId,
    },
  };
}
