/**
 * The one error the SDK throws. An answer of the gateway carries its own error body
 * (`{"error": {code, message, hint, requestId}}`) and is rebuilt from it; what goes wrong on the
 * agent's side has a code of its own (SDK_CODES). Callers test `code`, never the message.
 */

/** Codes of failures seen by the SDK itself, not answered by the gateway in an error body. */
export const SDK_CODES = {
  /** A 3xx: the SDK never follows a redirect (it would carry the token elsewhere). */
  REDIRECT_REFUSED: 'REDIRECT_REFUSED',
  /** An answer that is not what the API documents (not JSON, or no error body on an error). */
  UNEXPECTED_RESPONSE: 'UNEXPECTED_RESPONSE',
  /** The owner denied the handshake or the device, or revoked it. */
  ACCESS_DENIED: 'ACCESS_DENIED',
  /** The authorization server refused (OAuth error `error`, in `hint` its description). */
  OAUTH_ERROR: 'OAUTH_ERROR',
  /** Waiting for approval or for Retry-After would take longer than the caller allows. */
  GAVE_UP_WAITING: 'GAVE_UP_WAITING',
  /** The base URL carries a query, a fragment or /api/v1. */
  INVALID_BASE_URL: 'INVALID_BASE_URL',
  /** The stream ended without its `done` event. */
  STREAM_INCOMPLETE: 'STREAM_INCOMPLETE',
} as const;

export interface PagErrorFields {
  /** The gateway's error code (docs/errors.md), or one of SDK_CODES. */
  code: string;
  message: string;
  hint?: string | null;
  requestId?: string | null;
  /** The HTTP status, or null when no answer carried the error. */
  status?: number | null;
  /** Seconds the gateway asked to wait (Retry-After), when it said. */
  retryAfterSeconds?: number | null;
  /** Where a refused redirect pointed. */
  location?: string | null;
  cause?: unknown;
}

export class PagError extends Error {
  readonly code: string;
  readonly hint: string | null;
  readonly requestId: string | null;
  readonly status: number | null;
  readonly retryAfterSeconds: number | null;
  readonly location: string | null;

  constructor(fields: PagErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'PagError';
    this.code = fields.code;
    this.hint = fields.hint ?? null;
    this.requestId = fields.requestId ?? null;
    this.status = fields.status ?? null;
    this.retryAfterSeconds = fields.retryAfterSeconds ?? null;
    this.location = fields.location ?? null;
  }
}

interface ErrorBodyShape {
  error: { code: string; message: string; hint?: string; requestId?: string };
}

function isErrorBody(value: unknown): value is ErrorBodyShape {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const { error } = value as { error: unknown };
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** Seconds from a Retry-After header (delay-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error of a non-2xx answer: its error body when it has one, else a description of the answer. */
export async function errorFromResponse(response: Response): Promise<PagError> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
  if (isErrorBody(parsed)) {
    return new PagError({
      code: parsed.error.code,
      message: parsed.error.message,
      hint: parsed.error.hint ?? null,
      requestId: parsed.error.requestId ?? response.headers.get('x-request-id'),
      status: response.status,
      retryAfterSeconds: retryAfter,
    });
  }
  return new PagError({
    code: SDK_CODES.UNEXPECTED_RESPONSE,
    message: `${response.status} without an error body: ${text.slice(0, 200)}`,
    requestId: response.headers.get('x-request-id'),
    status: response.status,
    retryAfterSeconds: retryAfter,
  });
}

/** The error for a 3xx answer (or a browser's opaque redirect), naming where it pointed. */
export function redirectRefused(response: Response, url: string): PagError {
  const location = response.headers.get('location');
  return new PagError({
    code: SDK_CODES.REDIRECT_REFUSED,
    message: `${url} answered a redirect${location === null ? '' : ` to ${location}`}; the SDK does not follow redirects.`,
    hint: 'Use the base URL exactly as the gateway publishes it (its /llms.txt names it); a redirect would drop or leak the token.',
    requestId: response.headers.get('x-request-id'),
    status: response.status === 0 ? null : response.status,
    location,
  });
}

export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}
