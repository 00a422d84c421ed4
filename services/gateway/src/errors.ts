/**
 * The gateway's one error handler. Everything thrown below it becomes the error body of the
 * contracts; body-parser failures become 400/413/415 with what to fix; anything unexpected is
 * logged with its stack and answered as a masked 500 (never a stack trace on the wire).
 */
import { API_PREFIX, AppError, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, Response } from 'express';
import { recordAuditReason } from './pipeline/audit.ts';
import { bearerChallenge } from './pipeline/authenticate.ts';
import { state } from './pipeline/state.ts';

/** Errors raised by body-parser carry a `type`; these are the client's mistakes. */
interface BodyParserError extends Error {
  type?: string;
  limit?: number;
  status?: number;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.too.large':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request body exceeds the limit of ${parserError.limit} bytes.`,
      );
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', `The request body is not valid JSON: ${parserError.message}.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', parserError.message);
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('INVALID_REQUEST', 'The request body ended before its declared length.');
    default:
      return new AppError('INTERNAL_ERROR', 'Unexpected error.', { cause: error });
  }
}

/**
 * Every 401 under /api/v1 names the protected-resource metadata, also when a service behind the
 * gateway raised it without a challenge.
 */
function withChallenge(error: AppError, path: string, publicUrl: string): Record<string, string> {
  const { headers } = error;
  if (
    error.status !== 401 ||
    !path.startsWith(`${API_PREFIX}/`) ||
    headers['www-authenticate'] !== undefined
  ) {
    return headers;
  }
  const code = error.code === 'INVALID_TOKEN' ? 'invalid_token' : undefined;
  return { ...headers, 'www-authenticate': bearerChallenge(publicUrl, code) };
}

export function errorHandler(logger: Logger, publicUrl: string) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(error);
    const { requestId } = state(res);
    recordAuditReason(res, appError.code);
    if (appError.status >= 500 && appError.code === 'INTERNAL_ERROR') {
      logger.error({ err: appError.cause ?? appError, requestId }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res
      .status(appError.status)
      .set(withChallenge(appError, req.path, publicUrl))
      .json(toErrorBody(appError, requestId));
  };
}
