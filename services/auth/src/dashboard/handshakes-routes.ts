/**
 * /dashboard/handshakes: the signed-in owner's queue of access requests.
 *
 * - GET  /handshakes                  the queue and the decided ones (this owner's only)
 * - POST /handshakes/:id/approve      ticked scopes (requested ones only), optional daily/monthly
 *                                     limits, expiry date (empty: 90 days), optional persona
 *                                     (persona-choice.ts) → 201 page showing the new token once,
 *                                     or, for a handshake with a proof, that the agent collects it
 *                                     (and, if the persona could not be set, saying so)
 * - POST /handshakes/:id/deny         → 303 back to the queue
 * - GET  /handshakes/claim?code=…     the claim form, pre-filled from the link the agent showed
 * - POST /handshakes/claim            makes an unassigned request this owner's → 303 to the queue
 *
 * Another owner's handshake is "not found" (404 page) for every action; a claim code of another
 * owner's handshake fails like an unknown one. Every POST checks the CSRF token; every page is
 * no-store (pageGuard).
 */
import type { Router } from '@koa/router';
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { ownerRequest } from '../interactions/owner-request.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import type { Approval } from '../store/handshake-store.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { claimPage, queuePage, scopeField, tokenPage } from './handshakes-pages.ts';
import type { OwnerState } from './owner-context.ts';
import { ownerOf } from './owner-context.ts';
import { assignChosenPersona, PERSONA_FIELD, personaChoices } from './persona-choice.ts';
import { endOfDay } from './tokens-form.ts';

/** An optional limit field: empty is no limit; otherwise a whole number (createAgent checks the range). */
function limitField(form: Record<string, string>, name: string, label: string): number | null {
  const text = (form[name] ?? '').trim();
  if (text === '') return null;
  if (!/^\d{1,9}$/.test(text))
    throw new AppError('INVALID_REQUEST', `${label} must be a whole number, or empty for no limit.`);
  return Number(text);
}

function paramId(ctx: Context): string {
  return String(ctx.params.id ?? '');
}

export function registerHandshakeRoutes(router: Router, deps: DashboardDeps): void {
  const { logger } = deps;
  const { handshakes } = deps.core;

  const showQueue = async (
    ctx: Context,
    owner: OwnerState,
    status: number,
    extra: { claimedId?: string; error?: { handshakeId: string; message: string } } = {},
  ) => {
    const [pending, decided] = await Promise.all([
      handshakes.pending(owner.id),
      handshakes.decided(owner.id),
    ]);
    const personas = pending.length === 0 ? [] : await personaChoices(deps, ctx);
    sendPage(ctx, status, queuePage({ owner, pending, decided, now: new Date(), personas, ...extra }));
  };

  router.get('/handshakes', async (ctx) => {
    const claimed = ctx.query.claimed;
    await showQueue(ctx, ownerOf(ctx), 200, typeof claimed === 'string' ? { claimedId: claimed } : {});
  });

  router.get('/handshakes/claim', (ctx) => {
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    sendPage(ctx, 200, claimPage({ owner: ownerOf(ctx), code }));
  });

  router.post('/handshakes/claim', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const owner = ownerOf(ctx);
    const code = form.code ?? '';
    try {
      const handshake = await handshakes.claim(owner.id, code, ownerRequest(ctx));
      logger.info({ accountId: owner.id, handshakeId: handshake.id }, 'handshake claimed');
      seeOther(ctx, `/dashboard/handshakes?claimed=${handshake.id}`);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      sendPage(ctx, 404, claimPage({ owner, code, error: error.message }));
    }
  });

  router.post('/handshakes/:id/approve', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const owner = ownerOf(ctx);
    const id = paramId(ctx);
    // Throws NOT_FOUND (the 404 page) for anything not this owner's.
    const record = await handshakes.get(owner.id, id);
    try {
      const approval: Approval = {
        // Only the requested scopes are read from the form: nothing else can be granted here.
        scopes: record.requestedScopes.filter((scope) => form[scopeField(scope)] === 'on'),
        dailyLimit: limitField(form, 'daily', 'The daily limit'),
        monthlyLimit: limitField(form, 'monthly', 'The monthly limit'),
        expiresAt: endOfDay(form.expires ?? '') ?? undefined,
      };
      const { agent, token } = await handshakes.approve(owner.id, id, approval, ownerRequest(ctx));
      logger.info({ accountId: owner.id, handshakeId: id, agentId: agent.id }, 'handshake approved');
      const personaNote = await assignChosenPersona(deps, ctx, agent.id, form[PERSONA_FIELD] ?? '');
      sendPage(ctx, 201, tokenPage({ owner, record, agent, token, personaNote }));
    } catch (error) {
      if (!(error instanceof AppError && (error.code === 'INVALID_REQUEST' || error.code === 'CONFLICT')))
        throw error;
      await showQueue(ctx, owner, error.status, { error: { handshakeId: id, message: error.message } });
    }
  });

  router.post('/handshakes/:id/deny', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const owner = ownerOf(ctx);
    const id = paramId(ctx);
    await handshakes.deny(owner.id, id, ownerRequest(ctx));
    logger.info({ accountId: owner.id, handshakeId: id }, 'handshake denied');
    seeOther(ctx, '/dashboard/handshakes');
  });
}
