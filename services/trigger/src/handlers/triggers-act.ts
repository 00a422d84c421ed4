/**
 * trigger.triggers.run|pause|resume|delete (POST /api/v1/triggers/:id/run|pause|resume, DELETE
 * /api/v1/triggers/:id): only the agent that created the trigger, or a token with `full`, may act
 * on it (else 403 INSUFFICIENT_SCOPE); another account's id is 404 before any right is judged, so
 * the answer never tells that it exists. What each does is TriggerControl's.
 */

import { AppError, scopeGrants, TriggerEndpoints } from '@pag/contracts';
import type { AccountCaller } from '@pag/kit';
import { handle } from '@pag/kit';
import type { Actor, TriggerControl } from '../control/trigger-control.ts';
import type { TriggerRow } from '../domain/trigger-view.ts';
import type { TriggerHandlerDeps } from './trigger-deps.ts';
import { oneTriggerView, queuedRunView } from './trigger-views.ts';

/** The account's trigger `id`, if the caller may act on it. */
async function controlled(control: TriggerControl, caller: AccountCaller, id: string): Promise<TriggerRow> {
  const row = await control.find(caller.accountId, id);
  if (caller.agentId !== row.createdByAgent && !scopeGrants(caller.scopes, 'full')) {
    throw new AppError(
      'INSUFFICIENT_SCOPE',
      `Only the agent that created trigger ${id} or a token with full may run, pause, resume or delete it.`,
      { hint: 'Ask with the token of the agent that created it, or one with the scope full.' },
    );
  }
  return row;
}

const actorOf = (caller: AccountCaller): Actor => ({
  type: 'agent',
  agentId: caller.agentId,
  clientId: caller.clientId,
  requestId: caller.requestId,
});

export const triggersRun = handle(
  TriggerEndpoints.triggersRun,
  async (caller, { params }, { control }: TriggerHandlerDeps) => {
    const run = await control.runNow(await controlled(control, caller, params.id), actorOf(caller));
    return queuedRunView(run);
  },
);

export const triggerPause = handle(
  TriggerEndpoints.triggerPause,
  async (caller, { params }, { control }: TriggerHandlerDeps) =>
    oneTriggerView(
      control,
      await control.pause(await controlled(control, caller, params.id), actorOf(caller)),
    ),
);

export const triggerResume = handle(
  TriggerEndpoints.triggerResume,
  async (caller, { params }, { control }: TriggerHandlerDeps) =>
    oneTriggerView(
      control,
      await control.resume(await controlled(control, caller, params.id), actorOf(caller)),
    ),
);

export const triggerDelete = handle(
  TriggerEndpoints.triggerDelete,
  async (caller, { params }, { control }: TriggerHandlerDeps) => {
    await control.remove(await controlled(control, caller, params.id), actorOf(caller));
    return { id: params.id, deleted: true as const };
  },
);
