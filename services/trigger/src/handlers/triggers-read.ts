/**
 * trigger.triggers.list, trigger.triggers.get and trigger.runs.list (GET /api/v1/triggers,
 * /triggers/:id, /triggers/:id/runs): any token of the owner sees every trigger of the owner
 * (tenancy is the account), each with its next and newest run; another account's id is 404.
 * The runs come newest first, `limit` (default 20) a page, `cursor` the previous page's nextCursor.
 */
import { AppError, TriggerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { runRecord } from '../domain/trigger-view.ts';
import type { TriggerHandlerDeps } from './trigger-deps.ts';
import { oneTriggerView, triggerViews } from './trigger-views.ts';

const RUNS_PAGE_DEFAULT = 20;

export const triggersList = handle(
  TriggerEndpoints.triggersList,
  async (caller, _input, { control }: TriggerHandlerDeps) => ({
    triggers: await triggerViews(control, caller.accountId, await control.store.list(caller.accountId)),
  }),
);

export const triggerGet = handle(
  TriggerEndpoints.triggerGet,
  async (caller, { params }, { control }: TriggerHandlerDeps) => {
    return oneTriggerView(control, await control.find(caller.accountId, params.id));
  },
);

/** A cursor is the seq of the last run of the previous page, in decimal. */
function cursorOf(cursor: string | undefined): bigint | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[1-9]\d{0,18}$/.test(cursor))
    throw new AppError(
      'INVALID_REQUEST',
      'Invalid query: cursor: not a cursor of this list (pass nextCursor).',
    );
  return BigInt(cursor);
}

export const runsList = handle(
  TriggerEndpoints.runsList,
  async (caller, { params, query }, { control }: TriggerHandlerDeps) => {
    const before = cursorOf(query.cursor);
    const row = await control.find(caller.accountId, params.id);
    const page = await control.store.runsPage(caller.accountId, row.id, {
      limit: query.limit ?? RUNS_PAGE_DEFAULT,
      before,
    });
    return { runs: page.runs.map(runRecord), nextCursor: page.nextBefore?.toString() ?? null };
  },
);
