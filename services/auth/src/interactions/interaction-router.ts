/**
 * The pages oidc-provider sends the browser to during an authorization: sign in, then consent.
 *
 * What it enforces:
 * - the interaction comes from oidc-provider's own cookie, and it must be the one in the URL;
 * - every POST comes from our own origin (same-origin.ts) and carries the CSRF token (csrf.ts);
 * - sign-in is throttled (AccountStore.signIn) and answers "too many attempts" with Retry-After
 *   rather than waiting;
 * - consent grants what the prompt lists and the owner left ticked, on our API resource only;
 *   unticked scopes are recorded as rejected (oidc-provider then does not ask again for them);
 *   unticking every scope is a denial;
 * - the limits and persona set on the consent page apply to the client's agent: limits through
 *   AgentStore.recordConsent (the rule every agent's limits follow), the persona through the
 *   brain as on the approval forms (ConsentPersonas); a refused limit shows the page again (400)
 *   with what the owner entered, and nothing is granted;
 * - deny ends the interaction with access_denied, which the client receives at its redirect URI;
 * - every ending is a 303 from this server to oidc-provider's resume URL, which in turn 303s to
 *   the client: no form ever posts to another origin.
 */
import { Router } from '@koa/router';
import type { OwnerPersona } from '@pag/contracts';
import { AppError, protectedResourceId, protectedResourceIds } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { documentHost } from '../provider/client-documents.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { AgentStore } from '../store/agent-store.ts';
import { readConsentForm } from './consent-form.ts';
import { readConsentRequest, redirectDestination, redirectFormTarget } from './consent-scopes.ts';
import { checkCsrf, csrfToken } from './csrf.ts';
import { formBody, formFields } from './form-body.ts';
import type { ConsentFormValues } from './interaction-pages.ts';
import { consentPage, loginPage } from './interaction-pages.ts';
import { ownerRequest } from './owner-request.ts';
import type { CookiePolicy } from './page-cookie.ts';
import { pageGuard, sendPage, setPageHeaders } from './page-security.ts';
import { sameOriginPosts } from './same-origin.ts';

/**
 * The owner's personas for the consent page, and the choice made there (dashboard/persona-choice.ts
 * through the brain, as the approval forms do). Absent: the page offers no persona.
 */
export interface ConsentPersonas {
  /** The owner's personas; null when the brain did not answer. */
  list(ctx: Context, accountId: string): Promise<OwnerPersona[] | null>;
  /** Assigns the persona ('' = the default: nothing to do); a sentence when it could not be set. */
  assign(ctx: Context, accountId: string, agentId: string, personaId: string): Promise<string | null>;
}

export interface InteractionRouterOptions {
  provider: Provider;
  accounts: AccountStore;
  /** Told of every consent, so the client becomes one of the owner's agents. */
  agents: Pick<AgentStore, 'recordConsent' | 'recordConsentRefused'>;
  personas?: ConsentPersonas | undefined;
  logger: Logger;
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

const WRONG_CREDENTIALS = 'The email or password is wrong.';

function clientNameOf(
  client: { clientName?: string | undefined; clientId: string } | undefined,
  fallback: string,
): string {
  return client?.clientName?.trim() || client?.clientId || fallback;
}

export function createInteractionRouter({
  provider,
  accounts,
  agents,
  personas,
  logger,
}: InteractionRouterOptions): Router {
  const router = new Router();
  const issuer = provider.issuer.replace(/\/+$/, '');
  const apiResource = protectedResourceId(issuer, 'api');
  const gatewayResources = new Set(protectedResourceIds(issuer));
  const cookies: CookiePolicy = { secure: issuer.startsWith('https:') };

  async function interactionOf(ctx: Context): Promise<Interaction> {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res);
    if (interaction.uid !== ctx.params.uid) {
      throw new AppError(
        'INVALID_REQUEST',
        'This page belongs to another sign-in request. Go back to the application and start again.',
      );
    }
    // Pages of this interaction may end in a redirect to the client: admit its origin (page-security.ts).
    setPageHeaders(ctx, redirectFormTarget(interaction.params.redirect_uri));
    return interaction;
  }

  async function clientName(interaction: Interaction): Promise<string> {
    const clientId = String(interaction.params.client_id ?? '');
    return clientNameOf(await provider.Client.find(clientId), clientId || 'An application');
  }

  async function finish(ctx: Context, result: Parameters<Provider['interactionResult']>[2], merge: boolean) {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, {
      mergeWithLastSubmission: merge,
    });
    ctx.redirect(returnTo);
    ctx.status = 303;
  }

  async function renderLogin(
    ctx: Context,
    interaction: Interaction,
    status: number,
    extra: { email?: string; error?: string } = {},
  ) {
    const name = await clientName(interaction);
    const host = documentHost(String(interaction.params.client_id ?? ''));
    sendPage(
      ctx,
      status,
      loginPage({
        uid: interaction.uid,
        csrf: csrfToken(ctx, cookies),
        clientName: name,
        documentHost: host,
        ...extra,
      }),
    );
  }

  async function renderConsent(
    ctx: Context,
    interaction: Interaction,
    status: number,
    extra: { form?: ConsentFormValues; error?: string } = {},
  ) {
    const request = readConsentRequest(interaction.prompt.details, gatewayResources);
    const accountId = interaction.session?.accountId;
    const account = accountId ? await accounts.findById(accountId) : null;
    const clientId = String(interaction.params.client_id ?? '');
    sendPage(
      ctx,
      status,
      consentPage({
        uid: interaction.uid,
        csrf: csrfToken(ctx, cookies),
        clientName: await clientName(interaction),
        documentHost: documentHost(clientId),
        redirectTarget: redirectDestination(interaction.params.redirect_uri),
        accountEmail: account?.email,
        scopes: request.apiDescribed,
        oidcScopes: request.oidcDescribed,
        personas: personas && accountId ? await personas.list(ctx, accountId) : undefined,
        ...extra,
      }),
    );
  }

  async function deny(ctx: Context, interaction: Interaction, accountId: string | undefined) {
    const clientId = String(interaction.params.client_id);
    if (accountId) await agents.recordConsentRefused({ accountId, clientId }, ownerRequest(ctx));
    logger.info({ interaction: interaction.uid, clientId }, 'owner denied a client');
    await finish(ctx, { error: 'access_denied', error_description: 'The owner denied access.' }, false);
  }

  router.use(pageGuard(logger));
  router.use(sameOriginPosts(issuer));

  router.get('/interaction/:uid', async (ctx) => {
    const interaction = await interactionOf(ctx);
    if (interaction.prompt.name === 'login') return renderLogin(ctx, interaction, 200);
    if (interaction.prompt.name !== 'consent') {
      throw new AppError(
        'INVALID_REQUEST',
        'This sign-in step is not supported. Go back to the application.',
      );
    }
    return renderConsent(ctx, interaction, 200);
  });

  router.post('/interaction/:uid/login', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const interaction = await interactionOf(ctx);
    if (interaction.prompt.name !== 'login') {
      throw new AppError(
        'INVALID_REQUEST',
        'You are already signed in for this request. Go back to the application.',
      );
    }
    const email = form.email ?? '';
    const result = await accounts.signIn(email, form.password ?? '', ctx.ip || undefined, ownerRequest(ctx));
    if (result.outcome === 'throttled') {
      ctx.set('Retry-After', String(result.retryAfterSeconds));
      const error = `Too many attempts. Try again in ${result.retryAfterSeconds} s.`;
      return renderLogin(ctx, interaction, 429, { email, error });
    }
    if (result.outcome === 'rejected')
      return renderLogin(ctx, interaction, 401, { email, error: WRONG_CREDENTIALS });
    logger.info(
      { accountId: result.account.id, interaction: interaction.uid },
      'owner signed in for an authorization',
    );
    await finish(ctx, { login: { accountId: result.account.id } }, false);
  });

  router.post('/interaction/:uid/confirm', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const interaction = await interactionOf(ctx);
    const accountId = interaction.session?.accountId;
    if (interaction.prompt.name !== 'consent' || !accountId) {
      throw new AppError(
        'INVALID_REQUEST',
        'There is nothing to allow at this step. Go back to the application.',
      );
    }
    const request = readConsentRequest(interaction.prompt.details, gatewayResources);
    const choice = readConsentForm(form, request.apiScopes);
    if (choice.decision === 'deny') return deny(ctx, interaction, accountId);
    if (choice.decision === 'refused')
      return renderConsent(ctx, interaction, 400, { form: choice.values, error: choice.error });
    const clientId = String(interaction.params.client_id);
    const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
    const grant = existing ?? new provider.Grant({ accountId, clientId });
    if (request.oidcScopes.length > 0) grant.addOIDCScope(request.oidcScopes.join(' '));
    if (request.oidcClaims.length > 0) grant.addOIDCClaims(request.oidcClaims);
    // The identifier the client asked for (the token's audience); the API when it named none.
    const resource = request.resource ?? apiResource;
    if (choice.granted.length > 0) grant.addResourceScope(resource, choice.granted.join(' '));
    if (choice.rejected.length > 0) grant.rejectResourceScope(resource, choice.rejected.join(' '));
    const grantId = await grant.save();
    const client = await provider.Client.find(clientId);
    const agent = await agents.recordConsent(
      {
        accountId,
        clientId,
        name: clientNameOf(client, clientId),
        scopes: grant.getResourceScope(resource).split(' ').filter(Boolean),
        dailyLimit: choice.dailyLimit,
        monthlyLimit: choice.monthlyLimit,
      },
      ownerRequest(ctx),
    );
    if (personas) {
      // As at approval: a persona that could not be set never holds the consent up.
      const unset = await personas.assign(ctx, accountId, agent.id, choice.personaId);
      if (unset !== null) logger.info({ accountId, agentId: agent.id }, unset);
    }
    logger.info(
      { accountId, clientId, grantId, scopes: choice.granted, unticked: choice.rejected },
      'owner allowed a client',
    );
    // An existing grant was updated in place; only a new one is named in the result.
    await finish(ctx, { consent: existing ? {} : { grantId } }, true);
  });

  router.post('/interaction/:uid/abort', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const interaction = await interactionOf(ctx);
    await deny(ctx, interaction, interaction.session?.accountId);
  });

  return router;
}
