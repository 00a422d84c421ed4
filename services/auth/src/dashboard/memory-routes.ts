/**
 * /dashboard/memory: the owner's memory, kept by the brain (memoryList / memoryDelete /
 * memoryClear over the bus, brain-source.ts).
 *
 * - GET  /memory              ?q= searches, ?agent= narrows to one agent (or "none"), ?cursor= pages
 * - POST /memory/:id/delete   deletes one entry → 303 back
 * - GET  /memory/clear        ?agent=: asks to confirm; POST deletes every entry of that agent → 303
 *
 * Each entry names the agent that wrote it by the name in auth's own agent records (the id when
 * auth has none). Tenancy: every message names the signed-in owner (another owner's entry is "not
 * found"). CSRF on every POST; an unavailable brain is a 503 page saying so.
 */
import type { Router } from '@koa/router';
import type { OwnerMemoryPage } from '@pag/contracts';
import { AppError, BRAIN_PAGE_DEFAULT, BrainOwnerEndpoints } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField } from './brain-pages.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import type { MemoryFilter } from './memory-pages.ts';
import { agentLabel, memoryClearPage, memoryPage, NO_AGENT } from './memory-pages.ts';
import { ownerOf } from './owner-context.ts';

/** The filter's agent as the brain's messages name it: "" (query) or null (clear) for none. */
const agentOfFilter = (agent: string) => (agent === NO_AGENT ? '' : agent);

export function registerMemoryRoutes(router: Router, deps: DashboardDeps): void {
  const agentNames = async (ctx: Context) =>
    new Map((await deps.core.agents.list(ownerOf(ctx).id)).map((agent) => [agent.id, agent.name]));

  router.get('/memory', async (ctx) => {
    const filter: MemoryFilter = {
      q: queryField(ctx.query, 'q').trim(),
      agent: queryField(ctx.query, 'agent'),
    };
    const cursor = queryField(ctx.query, 'cursor');
    const cleared = queryField(ctx.query, 'cleared');
    const notice =
      queryField(ctx.query, 'deleted') === '1'
        ? 'The entry was deleted.'
        : /^\d+$/.test(cleared)
          ? `Deleted ${cleared} ${cleared === '1' ? 'entry' : 'entries'}.`
          : undefined;
    const shown = {
      owner: ownerOf(ctx),
      filter,
      paging: cursor !== '',
      agentNames: await agentNames(ctx),
      notice,
    };
    let page: OwnerMemoryPage;
    try {
      page = await brainSource(deps, ctx).ask(
        BrainOwnerEndpoints.memoryList,
        {
          limit: BRAIN_PAGE_DEFAULT,
          ...(filter.q === '' ? {} : { q: filter.q }),
          ...(filter.agent === '' ? {} : { agentId: agentOfFilter(filter.agent) }),
          ...(cursor === '' ? {} : { cursor }),
        },
        'filter',
      );
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      return sendPage(ctx, error.status, memoryPage({ ...shown, page: null, error: error.message }));
    }
    sendPage(ctx, 200, memoryPage({ ...shown, page }));
  });

  router.post('/memory/:id/delete', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const brain = brainSource(deps, ctx);
    const id = String(ctx.params.id ?? '');
    await brain.ask(BrainOwnerEndpoints.memoryDelete, { id });
    await brain.recordEdit({ action: 'memory.delete', target: id });
    seeOther(ctx, '/dashboard/memory?deleted=1');
  });

  router.get('/memory/clear', async (ctx) => {
    const agent = queryField(ctx.query, 'agent');
    if (agent === '') return seeOther(ctx, '/dashboard/memory');
    const label = agentLabel(agent === NO_AGENT ? null : agent, await agentNames(ctx));
    sendPage(ctx, 200, memoryClearPage({ owner: ownerOf(ctx), agent, label }));
  });

  router.post('/memory/clear', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const agent = fields.agent ?? '';
    if (agent === '') throw new AppError('INVALID_REQUEST', 'Choose the agent whose memory to delete.');
    const brain = brainSource(deps, ctx);
    try {
      const agentId = agent === NO_AGENT ? null : agent;
      const { deleted } = await brain.ask(BrainOwnerEndpoints.memoryClear, { agentId });
      await brain.recordEdit({ action: 'memory.clear', target: agentId, agentId, detail: { deleted } });
      seeOther(ctx, `/dashboard/memory?agent=${encodeURIComponent(agent)}&cleared=${deleted}`);
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      const label = agentLabel(agent === NO_AGENT ? null : agent, await agentNames(ctx));
      sendPage(
        ctx,
        error.status,
        memoryClearPage({ owner: ownerOf(ctx), agent, label, error: error.message }),
      );
    }
  });
}
