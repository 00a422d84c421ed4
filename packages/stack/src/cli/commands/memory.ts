/**
 * `pag memory list|remove|clear --owner E …`: the owner's memory, as the dashboard shows it.
 * - list [--agent ID | --no-agent] [--q TEXT] [--limit N] [--json]: newest first (or with --q the
 *   brain's full-text search, best first, with the matching passage), each entry with the agent
 *   that wrote it; --limit (default 50) the most entries printed; then how many there are in all.
 * - remove --id ID: deletes one entry, whichever agent wrote it.
 * - clear (--agent ID | --no-agent): deletes every entry one agent wrote (or those without one).
 */
import type { MemoryEntry } from '@pag/contracts';
import { BRAIN_PAGE_MAX } from '@pag/contracts';
import type { Command, CommandContext } from '../command.ts';
import { CliError, requireString } from '../command.ts';
import { stringOption, withOwnerBrain } from './owner-brain.ts';

const DEFAULT_LIMIT = 50;

/** One line per entry: what `pag memory list` prints. */
export function memoryLine(entry: MemoryEntry & { highlight?: string }): string {
  const text = entry.highlight ?? entry.content;
  return [entry.id, entry.createdAt, entry.agentId ?? '(no agent)', JSON.stringify(text)].join('  ');
}

/** --agent ID: that agent's entries; --no-agent: those without one; neither: undefined. */
function agentFilter(context: CommandContext, required: boolean): string | null | undefined {
  const agent = stringOption(context, 'agent');
  const none = context.values['no-agent'] === true;
  if (agent !== undefined && none) throw new CliError('give --agent ID or --no-agent, not both');
  if (required && agent === undefined && !none) throw new CliError('give --agent ID or --no-agent');
  if (agent === '') throw new CliError('--agent needs an agent id');
  return none ? null : agent;
}

function limitOption(context: CommandContext): number {
  const text = stringOption(context, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw new CliError('--limit must be a whole number of at least 1');
  return Number(text);
}

const memoryList: Command = {
  name: 'memory list',
  usage: '--owner E [--agent ID | --no-agent] [--q TEXT] [--limit N] [--json]',
  options: {
    owner: { type: 'string' },
    agent: { type: 'string' },
    'no-agent': { type: 'boolean' },
    q: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(context) {
    const agentId = agentFilter(context, false);
    const q = stringOption(context, 'q');
    if (q !== undefined && q.trim() === '') throw new CliError('--q must have words to search for');
    const limit = limitOption(context);
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const { memory, memoryAdmin } = brain.stores;
      const entries: (MemoryEntry & { highlight?: string })[] = [];
      if (q === undefined) {
        let before: bigint | undefined;
        while (entries.length < limit) {
          const page = await memoryAdmin.page(owner.id, {
            agentId,
            limit: Math.min(limit - entries.length, BRAIN_PAGE_MAX),
            before,
          });
          entries.push(...page.entries);
          if (page.nextBefore === null) break;
          before = page.nextBefore;
        }
      } else {
        while (entries.length < limit) {
          const want = Math.min(limit - entries.length, BRAIN_PAGE_MAX);
          const hits = await memoryAdmin.search(owner.id, q, {
            agentId,
            limit: want,
            offset: entries.length,
          });
          entries.push(...hits.map((hit) => ({ ...hit, createdAt: hit.createdAt.toISOString() })));
          if (hits.length < want) break;
        }
      }
      if (context.values.json === true) {
        for (const entry of entries) context.out(JSON.stringify(entry));
        return;
      }
      for (const entry of entries) context.out(memoryLine(entry));
      context.out(
        `${entries.length} shown, ${await memory.count(owner.id)} memory entries of ${owner.email} in all`,
      );
    });
  },
};

const memoryRemove: Command = {
  name: 'memory remove',
  usage: '--owner E --id ID',
  options: { owner: { type: 'string' }, id: { type: 'string' } },
  async run(context) {
    const id = requireString(context, 'id');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      // Another owner's entry is as unknown as one that never existed.
      if (!(await brain.stores.memoryAdmin.delete(owner.id, id)))
        throw new CliError(`no memory entry ${id} of ${owner.email}`);
      context.out(`removed ${id}`);
    });
  },
};

const memoryClear: Command = {
  name: 'memory clear',
  usage: '--owner E (--agent ID | --no-agent)',
  options: { owner: { type: 'string' }, agent: { type: 'string' }, 'no-agent': { type: 'boolean' } },
  async run(context) {
    const agentId = agentFilter(context, true) ?? null;
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const deleted = await brain.stores.memoryAdmin.clear(owner.id, agentId);
      context.out(
        `removed ${deleted} memory entries ${agentId === null ? 'written without an agent' : `of ${agentId}`}`,
      );
    });
  },
};

export const memoryCommands: Command[] = [memoryList, memoryRemove, memoryClear];
