/**
 * /dashboard/services: the owner connects and disconnects third-party services. The proxy owns
 * the vault and every call to a provider (ProxyOwnerEndpoints over the bus, owner-service.ts);
 * this page owns the owner's session (docs/adr/0065).
 *
 * - GET  /services            every connector with the owner's connection state
 * - POST /services/connect    OAuth: the proxy makes the state (bound to this account and this
 *                             session, single use, expiring) and PKCE pair → 303 to the provider
 * - GET  /services/callback   the provider's answer: the proxy checks the state against this
 *                             account and session, exchanges the code, stores the tokens → 303 back
 * - POST /services/api-key    an API-key connector's key (write-only) → 303 back
 * - POST /services/disconnect revokes at the provider where it offers revocation, then deletes → 303
 *
 * CSRF on every POST; the session binding is a hash of the owner session (account and sign-in
 * time), so a callback opened in another session (an attacker's link) is refused. The page's CSP
 * admits the providers' authorization origins as form targets: browsers check form-action on the
 * redirect that follows the Connect form. Each change is recorded as the owner's action through
 * auth's audit outbox (never a key or token). No proxy answering is a 503 page saying so.
 */
import { createHash } from 'node:crypto';
import type { Router } from '@koa/router';
import type { Connector } from '@pag/contracts';
import { AppError, ProxyOwnerEndpoints } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { currentOwner } from '../interactions/owner-session.ts';
import { seeOther, sendPage, setPageHeaders } from '../interactions/page-security.ts';
import { queryField } from './brain-pages.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';
import { ownerServiceSource } from './owner-service.ts';
import { servicesPage } from './services-pages.ts';

export const SERVICES_UNAVAILABLE_MESSAGE =
  'Your services are unavailable right now: the proxy service did not answer. Nothing was changed; try again in a moment.';

const SHOWN = [
  'INVALID_REQUEST',
  'NOT_FOUND',
  'CONNECT_FAILED',
  'CONNECTOR_NOT_CONFIGURED',
  'UPSTREAM_ERROR',
  'SERVICE_UNAVAILABLE',
];

function isShown(error: unknown): error is AppError {
  return error instanceof AppError && SHOWN.includes(error.code);
}

/** What the connect flow's state is bound to: this owner session (account and sign-in time). */
function sessionBinding(ctx: Context): string {
  const session = currentOwner(ctx);
  if (session === null) throw new Error('services routes run behind requireOwner');
  return createHash('sha256')
    .update(`pag-connect\n${session.accountId}.${session.issuedAt.getTime()}`)
    .digest('base64url');
}

function notice(ctx: Context): string | undefined {
  const name = queryField(ctx.query, 'service');
  switch (queryField(ctx.query, 'done')) {
    case 'connected':
      return `${name} is connected.`;
    case 'disconnected':
      return `${name} is disconnected.`;
    case 'revoked':
      return `${name} is disconnected, and its access was revoked at the service.`;
    default:
      return undefined;
  }
}

export function registerServiceRoutes(router: Router, deps: DashboardDeps): void {
  const proxy = (ctx: Context) => ownerServiceSource(deps, ctx, SERVICES_UNAVAILABLE_MESSAGE);

  async function render(
    ctx: Context,
    status: number,
    extras: { error?: string; notice?: string | undefined },
  ) {
    let connectors: Connector[] | null = null;
    let { error } = extras;
    try {
      connectors = (await proxy(ctx).ask(ProxyOwnerEndpoints.connectorsList, {})).connectors;
    } catch (failure) {
      if (!isShown(failure)) throw failure;
      error ??= failure.message;
      if (status < 400) status = failure.status;
    }
    const origins = new Set(
      (connectors ?? []).flatMap((item) =>
        item.canConnect && item.authorizationOrigin ? [item.authorizationOrigin] : [],
      ),
    );
    setPageHeaders(ctx, [...origins]);
    sendPage(ctx, status, servicesPage({ owner: ownerOf(ctx), connectors, error, notice: extras.notice }));
  }

  /** Runs a change; a refusal is shown on the page with its status. */
  async function change(ctx: Context, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!isShown(error)) throw error;
      await render(ctx, error.status, { error: error.message });
    }
  }

  router.get('/services', async (ctx) => {
    await render(ctx, 200, { notice: notice(ctx) });
  });

  router.post('/services/connect', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    await change(ctx, async () => {
      const { authorizationUrl } = await proxy(ctx).ask(
        ProxyOwnerEndpoints.connectStart,
        {
          service: fields.service ?? '',
          sessionBinding: sessionBinding(ctx),
          redirectUri: `${deps.core.publicUrl}/dashboard/services/callback`,
        },
        'service',
      );
      const target = new URL(authorizationUrl);
      setPageHeaders(ctx, [target.origin]);
      seeOther(ctx, target.toString());
    });
  });

  router.get('/services/callback', async (ctx) => {
    const code = queryField(ctx.query, 'code');
    const error = queryField(ctx.query, 'error');
    await change(ctx, async () => {
      const source = proxy(ctx);
      const done = await source.ask(
        ProxyOwnerEndpoints.connectFinish,
        {
          sessionBinding: sessionBinding(ctx),
          state: queryField(ctx.query, 'state').slice(0, 200) || '-',
          code: code === '' ? null : code.slice(0, 4000),
          error: error === '' ? null : error.slice(0, 200),
        },
        'callback',
      );
      await source.recordEdit({
        action: 'service.connect',
        target: done.service,
        detail: { method: 'oauth2' },
      });
      seeOther(ctx, `/dashboard/services?done=connected&service=${encodeURIComponent(done.displayName)}`);
    });
  });

  router.post('/services/api-key', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    await change(ctx, async () => {
      const source = proxy(ctx);
      const done = await source.ask(
        ProxyOwnerEndpoints.connectApiKey,
        { service: fields.service ?? '', key: (fields.key ?? '').trim() },
        'API key',
      );
      await source.recordEdit({
        action: 'service.connect',
        target: done.service,
        detail: { method: 'api_key' },
      });
      seeOther(ctx, `/dashboard/services?done=connected&service=${encodeURIComponent(done.displayName)}`);
    });
  });

  router.post('/services/disconnect', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    await change(ctx, async () => {
      const source = proxy(ctx);
      const done = await source.ask(
        ProxyOwnerEndpoints.disconnect,
        { service: fields.service ?? '' },
        'service',
      );
      await source.recordEdit({
        action: 'service.disconnect',
        target: done.service,
        detail: { revoked: done.revoked ?? false },
      });
      const outcome = done.revoked ? 'revoked' : 'disconnected';
      seeOther(ctx, `/dashboard/services?done=${outcome}&service=${encodeURIComponent(done.displayName)}`);
    });
  });
}
