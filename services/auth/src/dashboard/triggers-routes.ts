/**
 * /dashboard/triggers: the owner's triggers, kept by the trigger service (TriggerOwnerEndpoints
 * over the bus, owner-service.ts).
 *
 * - GET  /triggers               every trigger with its recent runs
 * - POST /triggers/:id/run       runs it now → 303 back
 * - POST /triggers/:id/pause     → 303 back;  POST /triggers/:id/resume → 303 back
 * - POST /triggers/:id/memory    enabled=true|false: whether outputs are also memory entries → 303
 * - GET  /triggers/:id/delete    asks to confirm; POST deletes → 303 back
 *
 * Each trigger names its creating agent by the name in auth's own agent records ("deleted agent"
 * when auth has none). What it enforces: tenancy (every message names the signed-in owner; another
 * owner's trigger is "not found", the 404 page); CSRF on every POST; a refusal of the trigger
 * service (a stopped trigger whose creator is still revoked, say) is shown on the list with its
 * status; no trigger service answering is a 503 page saying so. The audit log's record of each
 * change is the trigger service's own (it records every change of a trigger, whoever asked, with
 * the owner as actor for these), so the dashboard writes none of its own: one change, one event.
 */
import type { Router } from '@koa/router';
import type { OwnerTrigger } from '@pag/contracts';
import { AppError, TriggerOwnerEndpoints } from '@pag/contracts';
import type { Context } from 'koa';
import { agentStanding } from '../agents/agent-rules.ts';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField } from './brain-pages.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';
import type { OwnerServiceSource } from './owner-service.ts';
import { ownerServiceSource } from './owner-service.ts';
import type { CreatorLabel } from './triggers-pages.ts';
import { triggerDeletePage, triggersPage } from './triggers-pages.ts';

export const TRIGGERS_UNAVAILABLE_MESSAGE =
  'Your triggers are unavailable right now: the trigger service did not answer. Nothing was changed; try again in a moment.';

/** Runs shown under each trigger. */
const RECENT_RUNS = 5;

/** What the list says after each change (the 303's `done`). */
const DONE: Readonly<Record<string, (name: string) => string>> = {
  run: (name) => `“${name}” is running now; its run shows below when it has finished (reload).`,
  pause: (name) => `Paused “${name}”.`,
  resume: (name) => `Resumed “${name}”.`,
  'memory-on': (name) => `Outputs of “${name}” are now also saved to memory.`,
  'memory-off': (name) => `Outputs of “${name}” are no longer saved to memory.`,
  delete: () => 'The trigger was deleted.',
};

const triggerSource = (deps: DashboardDeps, ctx: Context): OwnerServiceSource =>
  ownerServiceSource(deps, ctx, TRIGGERS_UNAVAILABLE_MESSAGE);

const idOf = (ctx: Context) => String(ctx.params.id ?? '');

/**
 * A refusal the list shows beside the triggers, with its status: the trigger service's 4xx (but
 * NOT_FOUND, the 404 page) and its absence. The rest goes to the page guard.
 */
function isShownRefusal(error: unknown): error is AppError {
  return (
    error instanceof AppError &&
    error.code !== 'NOT_FOUND' &&
    (error.status < 500 || error.code === 'SERVICE_UNAVAILABLE')
  );
}

export function registerTriggerRoutes(router: Router, deps: DashboardDeps): void {
  async function creators(ctx: Context): Promise<Map<string, CreatorLabel>> {
    const now = new Date();
    const agents = await deps.core.agents.list(ownerOf(ctx).id);
    return new Map(
      agents.map((agent) => [agent.id, { name: agent.name, standing: agentStanding(agent, now) }]),
    );
  }

  async function listOf(ctx: Context): Promise<OwnerTrigger[]> {
    const list = await triggerSource(deps, ctx).ask(TriggerOwnerEndpoints.list, { runs: RECENT_RUNS });
    return list.triggers;
  }

  async function renderList(
    ctx: Context,
    status: number,
    extras: { error?: string; done?: string; id?: string },
  ): Promise<void> {
    let triggers: OwnerTrigger[] | null = null;
    let error = extras.error;
    try {
      triggers = await listOf(ctx);
    } catch (failure) {
      if (!(failure instanceof AppError && failure.code === 'SERVICE_UNAVAILABLE')) throw failure;
      error ??= failure.message;
      // A refusal of what was posted keeps its status; the list missing besides is said on the page.
      if (status < 400) status = failure.status;
    }
    const done = extras.done === undefined ? undefined : DONE[extras.done];
    const name = triggers?.find((trigger) => trigger.id === extras.id)?.name ?? 'the trigger';
    const page = triggersPage({
      owner: ownerOf(ctx),
      triggers,
      creators: await creators(ctx),
      error,
      notice: done?.(name),
    });
    sendPage(ctx, status, page);
  }

  /** The owner's trigger by id: NOT_FOUND (the 404 page) for anything else. */
  async function triggerOf(ctx: Context, id: string): Promise<OwnerTrigger> {
    const trigger = (await listOf(ctx)).find((item) => item.id === id);
    if (trigger === undefined) throw new AppError('NOT_FOUND', 'There is no such trigger of yours.');
    return trigger;
  }

  /** One change: asked of the trigger service, then back to the list saying so. */
  async function change(
    ctx: Context,
    done: string,
    act: (source: OwnerServiceSource, id: string) => Promise<unknown>,
  ): Promise<void> {
    const id = idOf(ctx);
    const source = triggerSource(deps, ctx);
    try {
      await act(source, id);
      const anchor = done === 'delete' ? '' : `#trigger-${encodeURIComponent(id)}`;
      seeOther(ctx, `/dashboard/triggers?done=${done}&id=${encodeURIComponent(id)}${anchor}`);
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { error: error.message });
    }
  }

  router.get('/triggers', async (ctx) => {
    await renderList(ctx, 200, { done: queryField(ctx.query, 'done'), id: queryField(ctx.query, 'id') });
  });

  router.post('/triggers/:id/run', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    await change(ctx, 'run', (source, id) => source.ask(TriggerOwnerEndpoints.run, { id }, 'trigger'));
  });

  router.post('/triggers/:id/pause', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    await change(ctx, 'pause', (source, id) => source.ask(TriggerOwnerEndpoints.pause, { id }, 'trigger'));
  });

  router.post('/triggers/:id/resume', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    await change(ctx, 'resume', (source, id) => source.ask(TriggerOwnerEndpoints.resume, { id }, 'trigger'));
  });

  router.post('/triggers/:id/memory', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    if (fields.enabled !== 'true' && fields.enabled !== 'false')
      throw new AppError('INVALID_REQUEST', 'enabled: Must be true or false.');
    const enabled = fields.enabled === 'true';
    await change(ctx, enabled ? 'memory-on' : 'memory-off', (source, id) =>
      source.ask(TriggerOwnerEndpoints.memory, { id, enabled }, 'trigger'),
    );
  });

  router.get('/triggers/:id/delete', async (ctx) => {
    const trigger = await triggerOf(ctx, idOf(ctx));
    sendPage(ctx, 200, triggerDeletePage({ owner: ownerOf(ctx), trigger }));
  });

  router.post('/triggers/:id/delete', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    await change(ctx, 'delete', (source, id) => source.ask(TriggerOwnerEndpoints.remove, { id }, 'trigger'));
  });
}
