/**
 * The one error handler of an express resource server. Everything thrown or passed to next()
 * becomes the contracts' error body (`{"error":{code,message,hint,requestId}}`) with the error's
 * headers (WWW-Authenticate, Allow, Retry-After); body-parser failures become 400/413/415 with
 * what to fix; anything unexpected is logged with its stack and answered as a masked 500 (never a
 * stack trace on the wire); a 5xx the service means (503, 504) is logged as a warning without one. Every 401 under /api/v1 names the protected-resource metadata, also
 * when a service behind raised it without a challenge. After an answer has started, a failure can
 * only cut the connection.
 */
import { API_PREFIX, AppError, protectedResourceOfPath, toErrorBody } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log/logger.ts';
import { bearerChallenge } from './authenticate.ts';
import { resourceState } from './state.ts';

export interface ErrorHandlerOptions {
  logger: Logger;
  publicUrl: string;
  /** Told the error before it is answered (the gateway's audit records its code). */
  onError?: (res: Response, error: AppError) => void;
}

/** Errors raised by body-parser carry a `type`; these are the client's mistakes. */
interface BodyParserError extends Error {
  type?: string;
  limit?: number;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const parserError = error as BodyParserError | undefined;
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

function withChallenge(error: AppError, path: string, publicUrl: string): Record<string, string> {
  const { headers } = error;
  const protectedPath = path.startsWith(`${API_PREFIX}/`) || protectedResourceOfPath(path) !== 'api';
  if (error.status !== 401 || !protectedPath || headers['www-authenticate'] !== undefined) {
    return headers;
  }
  const code = error.code === 'INVALID_TOKEN' ? 'invalid_token' : undefined;
  return { ...headers, 'www-authenticate': bearerChallenge(publicUrl, { error: code, path }) };
}

export function errorHandler(options: ErrorHandlerOptions) {
  const { logger, publicUrl, onError } = options;
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(error);
    const { requestId } = resourceState(res);
    onError?.(res, appError);
    if (appError.code === 'INTERNAL_ERROR') {
      logger.error({ err: appError.cause ?? appError, requestId }, 'request failed');
    } else if (appError.status >= 500) {
      // An outcome the service reports on purpose (a service down, a timeout): its code and
      // words, no stack, since nothing here is a bug to trace.
      logger.warn({ requestId, code: appError.code, reason: appError.message }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(appError.status);
    // Node's setHeader: express's res.set of an object ran its content-type and array checks on
    // each of these (WWW-Authenticate, Retry-After, Allow: never a Content-Type), on every refusal.
    for (const [name, value] of Object.entries(withChallenge(appError, req.path, publicUrl)))
      res.setHeader(name, value);
    res.json(toErrorBody(appError, requestId));
  };
}
