/**
 * How a handler's failure reaches the caller: as reply headers (the way nats.js services send
 * theirs), rebuilt by the caller into an AppError with the same code, status, message, hint,
 * expose flag and response headers. A failure that is not an AppError is a bug: it is logged
 * where it happened and travels as a masked INTERNAL_ERROR, so no internals cross the wire.
 */
import { AppError, isErrorCode } from '@pag/contracts';
import type { Logger } from '../log/logger.ts';
import type { Headers } from './types.ts';

export const ERROR_HEADERS = {
  code: 'Pag-Error-Code',
  status: 'Pag-Error-Status',
  message: 'Pag-Error-Message',
  hint: 'Pag-Error-Hint',
  expose: 'Pag-Error-Expose',
  headers: 'Pag-Error-Headers',
} as const;

/**
 * Message, hint and headers are percent-encoded: NATS header values must be one line and lose
 * surrounding spaces, and the caller must get the text back exactly.
 */
export function errorToHeaders(error: unknown, subject: string, logger: Logger): Headers {
  const appError =
    error instanceof AppError
      ? error
      : new AppError('INTERNAL_ERROR', `The handler of ${subject} failed.`, { cause: error });
  if (!(error instanceof AppError)) logger.error({ err: error, subject }, 'bus handler failed');
  const headers: Headers = {
    [ERROR_HEADERS.code]: appError.code,
    [ERROR_HEADERS.status]: String(appError.status),
    [ERROR_HEADERS.message]: encodeURIComponent(appError.message),
    [ERROR_HEADERS.hint]: encodeURIComponent(appError.hint),
    [ERROR_HEADERS.expose]: String(appError.expose),
  };
  if (Object.keys(appError.headers).length > 0) {
    headers[ERROR_HEADERS.headers] = encodeURIComponent(JSON.stringify(appError.headers));
  }
  return headers;
}

/** The AppError a reply carries, or undefined for a successful reply. */
export function errorFromHeaders(headers: Headers): AppError | undefined {
  const code = headers[ERROR_HEADERS.code];
  if (code === undefined) return undefined;
  const status = Number(headers[ERROR_HEADERS.status]);
  const message = decodeURIComponent(headers[ERROR_HEADERS.message] ?? '');
  const hint = headers[ERROR_HEADERS.hint];
  const extra = headers[ERROR_HEADERS.headers];
  return new AppError(
    // A code this build does not know (a newer peer) is still a failure: keep its status.
    isErrorCode(code) ? code : 'INTERNAL_ERROR',
    message,
    {
      status: Number.isInteger(status) && status > 0 ? status : undefined,
      hint: hint === undefined ? undefined : decodeURIComponent(hint),
      expose: headers[ERROR_HEADERS.expose] === 'true',
      headers:
        extra === undefined ? undefined : (JSON.parse(decodeURIComponent(extra)) as Record<string, string>),
    },
  );
}
