/**
 * The proxy's errors and its one error handler. Everything thrown in the pipeline becomes the
 * contracts' error body (`{"error":{code,message,hint,requestId}}`) with the error's headers
 * (WWW-Authenticate, Allow); anything unexpected is logged with its stack and answered as a
 * masked 500. After an answer has started, a failure can only cut the connection.
 */
import { AppError, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, Response } from 'express';
import type { ConnectorDefinition } from './connectors/catalogue.ts';
import { state } from './http/state.ts';

/**
 * The connector exists but this account cannot call it: never connected, or its connection
 * expired or failed (409 SERVICE_NOT_CONNECTED, apart from an unknown service: 404 NOT_FOUND).
 */
export function notConnected(
  connector: ConnectorDefinition,
  connection: 'missing' | 'expired' | 'error',
): AppError {
  const reason =
    connection === 'missing'
      ? `${connector.displayName} is not connected to this account.`
      : `The ${connector.displayName} connection of this account has ${connection === 'expired' ? 'expired' : 'failed'}.`;
  return new AppError('SERVICE_NOT_CONNECTED', reason, {
    hint: `The owner must ${connection === 'missing' ? 'connect' : 'reconnect'} ${connector.displayName} (${connector.name}) before agents can call it; GET /api/v1/services lists the connected services.`,
  });
}

export function errorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const appError =
      error instanceof AppError
        ? error
        : new AppError('INTERNAL_ERROR', 'Unexpected error.', { cause: error });
    const { requestId } = state(res);
    if (appError.status >= 500)
      logger.error({ err: appError.cause ?? appError, requestId, code: appError.code }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(appError.status).set(appError.headers).json(toErrorBody(appError, requestId));
  };
}
