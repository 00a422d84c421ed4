/**
 * Request durations into the process's histogram (service `auth`), counted once per request by
 * the kit's recordDuration, also for answers oidc-provider writes itself on the raw response and
 * for requests the client cut (status `aborted`). Labelled by a route template: interaction uids
 * and the like never become label values (unbounded cardinality, and they are request secrets in
 * a URL).
 */
import type { Metrics } from '@pag/kit';
import { recordDuration } from '@pag/kit';
import type { Middleware } from 'koa';

const KNOWN =
  /^\/(oauth\/[a-z/]+|\.well-known\/[a-z-]+(\/api\/v1)?|auth\.md|signup|login|logout|dashboard(\/[a-z]+)?)$/;

export function routeLabel(path: string): string {
  if (path.startsWith('/interaction/')) return '/interaction/:uid';
  if (path.startsWith('/oauth/authorize/')) return '/oauth/authorize/:uid';
  return KNOWN.test(path) ? path : 'other';
}

export function observe(metrics: Metrics): Middleware {
  return (ctx, next) => {
    recordDuration(metrics, 'auth', ctx.req, ctx.res, process.hrtime.bigint(), () => routeLabel(ctx.path));
    return next();
  };
}
