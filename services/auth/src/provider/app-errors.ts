/**
 * Our client errors inside oidc-provider's app, in OAuth's shape. Our middlewares installed with
 * provider.use (device grant, agent claims, discovery additions) run outside the per-route error
 * handler of oidc-provider (lib/shared/error_handler.js, which renders only its own
 * OIDCProviderError classes and turns anything else into 500 server_error), so an AppError they
 * throw, such as INVALID_TEXT from the database guard, would reach koa's default handler: a bare
 * 500 and a stack trace on stderr. Here it becomes `{"error":"invalid_request",
 * "error_description":…}` with its status (RFC 6749 §5.2). Installed first, so outermost.
 */
import { AppError } from '@pag/contracts';
import type { Middleware } from 'koa';

export const appErrorsAsOAuth: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof AppError) || !error.expose) throw error;
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: 'invalid_request', error_description: error.message };
  }
};
