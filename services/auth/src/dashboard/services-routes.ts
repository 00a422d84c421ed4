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
 * - POST /services/client[/remove]  the owner's own OAuth client for a connector (docs/adr/0068)
 * - POST /services/custom[/remove]  the owner's own generic OAuth 2.0 connector: created or
 *                             changed (a refusal shows the form again as typed, naming the
 *                             field), or deleted (disconnected and its tokens forgotten)
 *
 * CSRF on every POST; the session binding is a hash of the owner session (account and sign-in
 * time), so a callback opened in another session (an attacker's link) is refused. The page's CSP
 * admits the providers' authorization origins as form targets: browsers check form-action on the
 * redirect that follows the Connect form. Each change is recorded as the owner's action through
 * auth's audit outbox (never a key or token). No proxy answering is a 503 page saying so.
 */
import { createHash } from 'node:crypto';
import type { Router } from '@koa/router';
import type { Connector, OwnerConnectorInput, OwnerSettings } from '@pag/contracts';
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
import type { ConnectorDraft } from './services-owner-forms.ts';
import { servicesPage } from './services-pages.ts';

export const SERVICES_UNAVAILABLE_MESSAGE =
  'Your services are unavailable right now: the proxy service did not answer. Nothing was changed; try again in a moment.';

const SHOWN = [
  'INVALID_REQUEST',
  'NOT_FOUND',
  'CONNECT_FAILED',
  'CONNECTOR_NOT_CONFIGURED',
  'UPSTREAM_ERROR',
  'UPSTREAM_ADDRESS_REFUSED',
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
    case 'client':
      return `Your client for ${name} is saved.`;
    case 'client-removed':
      return `Your client for ${name} is removed.`;
    case 'custom':
      return `${name} is saved. Connect it below.`;
    case 'custom-removed':
      return `${name} is deleted.`;
    default:
      return undefined;
  }
}

export function registerServiceRoutes(router: Router, deps: DashboardDeps): void {
  const proxy = (ctx: Context) => ownerServiceSource(deps, ctx, SERVICES_UNAVAILABLE_MESSAGE);

  async function render(
    ctx: Context,
    status: number,
    extras: { error?: string; notice?: string | undefined; draft?: ConnectorDraft },
  ) {
    let connectors: Connector[] | null = null;
    let settings: OwnerSettings | null = null;
    let { error } = extras;
    try {
      const source = proxy(ctx);
      [{ connectors }, settings] = await Promise.all([
        source.ask(ProxyOwnerEndpoints.connectorsList, {}),
        source.ask(ProxyOwnerEndpoints.settingsGet, {}),
      ]);
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
    sendPage(
      ctx,
      status,
      servicesPage({
        owner: ownerOf(ctx),
        connectors,
        settings,
        redirectUri: redirectUri(),
        draft: extras.draft,
        error,
        notice: extras.notice,
      }),
    );
  }

  const redirectUri = () => `${deps.core.publicUrl}/dashboard/services/callback`;

  /** Runs a change; a refusal is shown on the page with its status (and the typed form). */
  async function change(ctx: Context, run: () => Promise<void>, draft?: ConnectorDraft): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!isShown(error)) throw error;
      await render(ctx, error.status, { error: error.message, ...(draft ? { draft } : {}) });
    }
  }

  /** A change of the owner's own settings: CSRF, the proxy's answer, the audit record, 303 back. */
  function settingsRoute(
    path: string,
    run: (
      source: ReturnType<typeof proxy>,
      fields: Record<string, string>,
    ) => Promise<{ service: string; displayName: string }>,
    outcome: { action: string; done: string; keepDraft?: boolean },
  ): void {
    router.post(path, formBody, async (ctx) => {
      const fields = formFields(ctx);
      checkCsrf(ctx, fields);
      const { clientSecret: _secret, _csrf, ...typed } = fields;
      await change(
        ctx,
        async () => {
          const source = proxy(ctx);
          const done = await run(source, fields);
          await source.recordEdit({ action: outcome.action, target: done.service });
          seeOther(
            ctx,
            `/dashboard/services?done=${outcome.done}&service=${encodeURIComponent(done.displayName)}`,
          );
        },
        outcome.keepDraft
          ? { ...(typed as ConnectorDraft), pkce: fields.pkce === 'on' ? 'on' : 'off' }
          : undefined,
      );
    });
  }

  settingsRoute(
    '/services/client',
    (source, fields) =>
      source.ask(
        ProxyOwnerEndpoints.clientSet,
        {
          service: fields.service ?? '',
          clientId: (fields.clientId ?? '').trim(),
          clientSecret: (fields.clientSecret ?? '').trim(),
        },
        'client',
      ),
    { action: 'service.client.set', done: 'client' },
  );
  settingsRoute(
    '/services/client/remove',
    (source, fields) =>
      source.ask(ProxyOwnerEndpoints.clientRemove, { service: fields.service ?? '' }, 'service'),
    { action: 'service.client.remove', done: 'client-removed' },
  );
  settingsRoute(
    '/services/custom',
    (source, fields) =>
      source.ask(ProxyOwnerEndpoints.customSet, { connector: connectorOf(fields) }, 'connector'),
    { action: 'service.custom.set', done: 'custom', keepDraft: true },
  );
  settingsRoute(
    '/services/custom/remove',
    (source, fields) =>
      source.ask(ProxyOwnerEndpoints.customRemove, { service: fields.service ?? '' }, 'service'),
    { action: 'service.custom.remove', done: 'custom-removed' },
  );

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

/** The custom connector form's fields as the proxy takes them (an empty secret keeps the stored one). */
function connectorOf(fields: Record<string, string>): OwnerConnectorInput {
  const text = (name: string) => (fields[name] ?? '').trim();
  const secret = text('clientSecret');
  return {
    name: text('name'),
    displayName: text('displayName'),
    authorizationUrl: text('authorizationUrl'),
    tokenUrl: text('tokenUrl'),
    revocationUrl: text('revocationUrl') === '' ? null : text('revocationUrl'),
    apiBaseUrl: text('apiBaseUrl'),
    scopes: text('scopes')
      .split(/\s+/)
      .filter((scope) => scope !== ''),
    clientAuth: text('clientAuth') === 'client_secret_basic' ? 'client_secret_basic' : 'client_secret_post',
    pkce: fields.pkce === 'on',
    clientId: text('clientId'),
    ...(secret === '' ? {} : { clientSecret: secret }),
  };
}
