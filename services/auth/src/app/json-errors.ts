/**
 * The one error handler of the service's own JSON and text routes (discovery documents): an
 * AppError becomes the contracts' error body with its status; anything else is logged and becomes
 * a 500 INTERNAL_ERROR body. Never a stack trace. The HTML pages have their own guard
 * (src/interactions/page-security.ts); oidc-provider renders its own protocol errors.
 */
import { randomUUID } from 'node:crypto';
import { AppError, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { Middleware } from 'koa';

export function jsonErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const appError =
        error instanceof AppError
          ? error
          : new AppError('INTERNAL_ERROR', 'The request could not be completed.', { cause: error });
      const requestId = ctx.get('x-request-id') || randomUUID();
      if (appError.status >= 500) logger.error({ err: error, path: ctx.path, requestId }, 'request failed');
      ctx.status = appError.status;
      for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = toErrorBody(appError, requestId);
    }
  };
}
