/**
 * The one error handler of a koa app's own JSON and text routes: an AppError becomes the
 * contracts' error body with its status and headers; anything else is logged with its stack and
 * becomes a masked 500 INTERNAL_ERROR body (the same wording as the express handler's). Never a
 * stack trace. It sees only what koa's middleware chain throws: oidc-provider answers its own
 * protocol errors in their OAuth shapes before they get here.
 */
import { randomUUID } from 'node:crypto';
import { AppError, toErrorBody } from '@pag/contracts';
import type { Middleware } from 'koa';
import type { Logger } from '../log/logger.ts';

export function koaErrorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const appError =
        error instanceof AppError
          ? error
          : new AppError('INTERNAL_ERROR', 'Unexpected error.', { cause: error });
      const requestId = ctx.get('x-request-id') || randomUUID();
      if (appError.status >= 500) logger.error({ err: error, path: ctx.path, requestId }, 'request failed');
      ctx.status = appError.status;
      for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = toErrorBody(appError, requestId);
    }
  };
}
