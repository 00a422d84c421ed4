/**
 * `pag trigger list|pause|resume|delete --owner E …`: the owner's triggers, as /dashboard/triggers
 * shows them, changed through the trigger service's own TriggerControl (@pag/trigger's
 * openTriggers), the one the owner's endpoints use: the same rules (a stopped trigger resumes only
 * when its creator is active and holds what it needs, read here from the auth service's store as
 * auth.agents.grant reads it), the same answers.
 * - list [--json]: newest first, each with its status, schedule in words, next run in the
 *   trigger's time zone, creator agent and newest run; --json one object per line (OwnerTrigger).
 * - pause|resume|delete --id ID [--json]: one trigger of that owner; another owner's is unknown.
 * Refusals (409 for a stopped trigger whose creator is revoked, 403 naming a scope it lost) are
 * one line, exit code 2. The operator's changes are not audit events (no bus here), as with
 * `pag memory`.
 */
import { agentGrantOf } from '@pag/auth';
import type { OwnerTrigger } from '@pag/contracts';
import type { OpenTriggers } from '@pag/trigger';
import { openTriggers, ownerTriggerViews } from '@pag/trigger';
import type { Command, CommandContext } from '../command.ts';
import { CliError, requireString } from '../command.ts';
import { ownerAccount } from './agent.ts';

/** The newest runs shown with --json. */
const RECENT_RUNS = 5;

/** One line per trigger: what `pag trigger list` prints. */
export function triggerLine(trigger: OwnerTrigger): string {
  const last = trigger.lastRun;
  return [
    trigger.id,
    trigger.status,
    JSON.stringify(trigger.name),
    trigger.scheduleText,
    `next ${trigger.nextRunAtLocal ?? 'none'}`,
    `by ${trigger.createdBy}`,
    last === null ? 'no runs' : `last run ${last.status} ${last.finishedAt ?? last.queuedAt}`,
    ...(trigger.statusReason === null ? [] : [`(${trigger.statusReason})`]),
  ].join('  ');
}

/** Runs `work` on the owner's triggers; both database clients are closed afterwards. */
async function withOwnerTriggers<T>(
  context: CommandContext,
  work: (owner: { id: string; email: string }, triggers: OpenTriggers) => Promise<T>,
): Promise<T> {
  await using auth = await context.openAuth();
  const owner = await ownerAccount(auth, context);
  await using triggers = openTriggers({
    databaseUrl: context.databaseUrl,
    logger: context.logger,
    grants: async ({ accountId, agentId }) =>
      agentGrantOf(agentId, await auth.agents.findWithPlan(accountId, agentId), new Date()),
  });
  // Awaited here, not returned: `await using` closes both clients when this function returns.
  return await work({ id: owner.id, email: owner.email }, triggers);
}

const triggerList: Command = {
  name: 'trigger list',
  usage: '--owner E [--json]',
  options: { owner: { type: 'string' }, json: { type: 'boolean' } },
  async run(context) {
    await withOwnerTriggers(context, async (owner, { control }) => {
      const rows = await control.store.list(owner.id);
      const triggers = await ownerTriggerViews(control, owner.id, rows, RECENT_RUNS);
      if (context.values.json === true) {
        for (const trigger of triggers) context.out(JSON.stringify(trigger));
        return;
      }
      for (const trigger of triggers) context.out(triggerLine(trigger));
      context.out(`${triggers.length} triggers of ${owner.email}`);
    });
  },
};

type Action = 'pause' | 'resume' | 'delete';

function triggerAction(action: Action, done: string): Command {
  return {
    name: `trigger ${action}`,
    usage: '--owner E --id ID [--json]',
    options: { owner: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' } },
    async run(context) {
      const id = requireString(context, 'id');
      await withOwnerTriggers(context, async (owner, { control }) => {
        const row = await control.store.get(owner.id, id);
        // Another owner's trigger is as unknown as one that never existed.
        if (row === null) throw new CliError(`no trigger ${id} of ${owner.email}`);
        const actor = { type: 'operator' as const, agentId: null, clientId: null, requestId: 'pag' };
        if (action === 'delete') {
          // The trigger service's refusals (409, 403) are AppErrors: pag prints them as one line, exit 2.
          await control.remove(row, actor);
          context.out(`deleted ${id} and its runs`);
          return;
        }
        const after = action === 'pause' ? await control.pause(row, actor) : await control.resume(row, actor);
        const [view] = await ownerTriggerViews(control, owner.id, [after], RECENT_RUNS);
        if (view === undefined) throw new CliError(`no trigger ${id} of ${owner.email}`);
        context.out(context.values.json === true ? JSON.stringify(view) : `${done} ${triggerLine(view)}`);
      });
    },
  };
}

export const triggerCommands: Command[] = [
  triggerList,
  triggerAction('pause', 'paused'),
  triggerAction('resume', 'resumed'),
  triggerAction('delete', 'deleted'),
];
