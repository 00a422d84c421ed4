/**
 * /dashboard/tokens: the owner creates scoped bearer tokens, sees every agent with its usage
 * against its limits, and revokes.
 *
 * What it enforces:
 * - tenancy: every store call names the signed-in owner (another owner's agent is "not found");
 * - CSRF on every POST (a 403 page otherwise);
 * - the token is shown once, in the answer to the POST itself (201, no-store like every page):
 *   never in a URL, a cookie or a log line; only its keyed hash rests in the database;
 * - a mistake in the form re-renders it with the message (role=alert) and what was typed, 400;
 * - revocation is final and immediate (AgentStore.revoke evicts every gateway cache), then a 303;
 * - no gateway to tell the usage: the page says "usage unavailable" and works;
 * - each active agent's persona is chosen on its row (persona-choice.ts: personaAssign with the
 *   agent's id, the gateway's pag-agent-id); no brain answering: "personas unavailable", and a
 *   choice posted meanwhile is a 503 page saying the brain is unavailable.
 */
import type { Router } from '@koa/router';
import { AppError, BrainOwnerEndpoints, MessageHeaders } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { ownerRequest } from '../interactions/owner-request.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';
import { PERSONA_FIELD, personaChoices } from './persona-choice.ts';
import { EMPTY_TOKEN_FORM, readTokenForm, tokenRequest } from './tokens-form.ts';
import type { TokensPageInput } from './tokens-pages.ts';
import { tokensPage } from './tokens-pages.ts';
import { agentUsage } from './tokens-usage.ts';

type PageExtras = Pick<TokensPageInput, 'form' | 'error' | 'created' | 'personaError'> & {
  /** An agent just revoked (from the 303's query): confirmed if it is one of the owner's. */
  revokedId?: string | undefined;
  /** An agent whose persona was just set (from the 303's query). */
  personaSetId?: string | undefined;
};

export function registerTokenRoutes(router: Router, deps: DashboardDeps): void {
  const { agents } = deps.core;

  async function render(ctx: Context, status: number, extras: PageExtras): Promise<void> {
    const owner = ownerOf(ctx);
    const list = await agents.list(owner.id);
    // Usage (the gateway) and personas (the brain) are asked together; each may be unavailable.
    const [usage, personas] = await Promise.all([
      agentUsage(
        {
          bus: deps.bus,
          logger: deps.logger,
          accountId: owner.id,
          requestId: ctx.get(MessageHeaders.requestId) || undefined,
        },
        list,
      ),
      personaChoices(deps, ctx),
    ]);
    const { revokedId, personaSetId, ...shown } = extras;
    const revoked = list.find((agent) => agent.id === revokedId && agent.status === 'revoked');
    const personaSet = list.find((agent) => agent.id === personaSetId);
    const notice =
      (revoked && `Revoked “${revoked.name}”: its tokens no longer work.`) ||
      (personaSet && `Set the persona of “${personaSet.name}”.`) ||
      undefined;
    sendPage(
      ctx,
      status,
      tokensPage({ owner, agents: list, usage, now: new Date(), notice, personas, ...shown }),
    );
  }

  router.get('/tokens', async (ctx) => {
    const revokedId = typeof ctx.query.revoked === 'string' ? ctx.query.revoked : undefined;
    const personaSetId = typeof ctx.query.persona === 'string' ? ctx.query.persona : undefined;
    await render(ctx, 200, { form: EMPTY_TOKEN_FORM, revokedId, personaSetId });
  });

  router.post('/tokens', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const owner = ownerOf(ctx);
    const form = readTokenForm(fields);
    let created: PageExtras['created'];
    try {
      const request = tokenRequest(form);
      const agent = await agents.createAgent(
        { accountId: owner.id, kind: 'dashboard', ...request },
        ownerRequest(ctx),
      );
      created = { agent, token: await agents.issueToken(agent) };
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_REQUEST')
        return render(ctx, 400, { form, error: error.message });
      throw error;
    }
    deps.logger.info({ accountId: owner.id, agentId: created.agent.id }, 'dashboard token created');
    await render(ctx, 201, { form: EMPTY_TOKEN_FORM, created });
  });

  router.post('/tokens/:agentId/revoke', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const owner = ownerOf(ctx);
    const agent = await agents.revoke(owner.id, ctx.params.agentId ?? '', ownerRequest(ctx));
    deps.logger.info({ accountId: owner.id, agentId: agent.id }, 'agent revoked on the dashboard');
    seeOther(ctx, `/dashboard/tokens?revoked=${encodeURIComponent(agent.id)}`);
  });

  router.post('/tokens/:agentId/persona', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const owner = ownerOf(ctx);
    // The owner's agent, by the id the gateway sends as pag-agent-id; another's is "not found".
    const agent = (await agents.list(owner.id)).find((item) => item.id === ctx.params.agentId);
    if (agent === undefined || agent.status !== 'active')
      throw new AppError('NOT_FOUND', 'There is no such active agent of yours.');
    const personaId = fields[PERSONA_FIELD] ?? '';
    const brain = brainSource(deps, ctx);
    try {
      await brain.ask(BrainOwnerEndpoints.personaAssign, {
        agentId: agent.id,
        personaId: personaId === '' ? null : personaId,
      });
      await brain.recordEdit({ action: 'persona.assign', target: personaId || null, agentId: agent.id });
    } catch (error) {
      if (!isShownRefusal(error) && !(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      return render(ctx, error.status, { form: EMPTY_TOKEN_FORM, personaError: error.message });
    }
    seeOther(ctx, `/dashboard/tokens?persona=${encodeURIComponent(agent.id)}`);
  });
}
