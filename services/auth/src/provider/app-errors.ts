/**
 * Our client errors inside oidc-provider's app, in OAuth's shape (RFC 6749 §5.2:
 * `{"error":"invalid_request","error_description":…}` with the AppError's status).
 *
 * oidc-provider renders only its own OIDCProviderError classes; anything else is a 500. Our code
 * runs inside it in two ways, and an AppError it throws (such as INVALID_TEXT from kit's database
 * guard) is caught in each:
 * - inside a route (a grant handler, findAccount): the route's error handler
 *   (lib/shared/error_handler.js) answers it as a 500 (it reads the status from `statusCode`)
 *   whose `error` is our message, and emits the route's error event (`grant.error`,
 *   `authorization.error`, … one per route) with ctx and the error before it returns. Listening
 *   to each event by name would miss a route added later, so the provider's `emit` is wrapped
 *   to see every `*.error`; the middleware below, outermost, then answers the AppError instead;
 * - in a middleware installed with provider.use (outside every route's error handler): the error
 *   would reach koa's default handler, a bare 500 with a stack trace on stderr; it is caught here.
 * oidc-provider's own client errors that escape its route handlers (the session is saved after
 * the route answered, e.g. end_session keeping a `state` the adapter refuses) would get koa's
 * default plain-text answer; they are answered as OAuth errors here too.
 */
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';

/** An AppError a client caused (status below 500), else null. */
export function clientAppError(error: unknown): AppError | null {
  return error instanceof AppError && error.expose ? error : null;
}

function answer(ctx: Context, error: AppError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: error.message };
}

/** Install first, so the middleware is outermost. */
export function answerAppErrorsAsOAuth(provider: Provider): void {
  const caughtInRoutes = new WeakMap<object, AppError>();
  const emit = provider.emit.bind(provider);
  provider.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    const [ctx, error] = args;
    const appError = typeof event === 'string' && event.endsWith('.error') ? clientAppError(error) : null;
    if (appError !== null && typeof ctx === 'object' && ctx !== null) caughtInRoutes.set(ctx, appError);
    return emit(event, ...args);
  };
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof errors.OIDCProviderError && error.expose) {
        ctx.status = error.statusCode;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: error.error, error_description: error.error_description };
        return;
      }
      const appError = clientAppError(error);
      if (appError === null) throw error;
      answer(ctx, appError);
      return;
    }
    const appError = caughtInRoutes.get(ctx);
    // Only what was answered as a 500; a redirect to the client already carries an OAuth error.
    if (appError !== undefined && ctx.status >= 500) answer(ctx, appError);
  });
}
