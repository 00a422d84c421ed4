/**
 * trigger.owner-triggers.* (TriggerOwnerEndpoints, asked by the auth service for the signed-in
 * owner's /dashboard/triggers): every trigger of the named account with its newest runs and its
 * schedule in words; pause, resume, delete, run now and the memory switch on one of them. Only
 * the named account is touched: another account's id is 404. The owner may act on any of its
 * triggers; each change is an audit event with the owner as actor.
 */

import { TriggerOwnerEndpoints } from '@pag/contracts';
import type { ServiceCaller } from '@pag/kit';
import { handle } from '@pag/kit';
import type { Actor, TriggerControl } from '../control/trigger-control.ts';
import type { TriggerRow } from '../domain/trigger-view.ts';
import type { TriggerHandlerDeps } from './trigger-deps.ts';
import { oneOwnerTriggerView, ownerTriggerViews, queuedRunView } from './trigger-views.ts';

/** The runs shown under a trigger the owner just changed. */
const RECENT_RUNS = 5;

const ownerActor = (caller: ServiceCaller): Actor => ({
  type: 'owner',
  agentId: null,
  clientId: null,
  requestId: caller.requestId,
});

const ownerView = (control: TriggerControl, row: TriggerRow) =>
  oneOwnerTriggerView(control, row, RECENT_RUNS);

export const ownerTriggersList = handle(
  TriggerOwnerEndpoints.list,
  async (_caller, { accountId, runs }, { control }: TriggerHandlerDeps) => ({
    triggers: await ownerTriggerViews(control, accountId, await control.store.list(accountId), runs),
  }),
);

export const ownerTriggerPause = handle(
  TriggerOwnerEndpoints.pause,
  async (caller, { accountId, id }, { control }: TriggerHandlerDeps) =>
    ownerView(control, await control.pause(await control.find(accountId, id), ownerActor(caller))),
);

export const ownerTriggerResume = handle(
  TriggerOwnerEndpoints.resume,
  async (caller, { accountId, id }, { control }: TriggerHandlerDeps) =>
    ownerView(control, await control.resume(await control.find(accountId, id), ownerActor(caller))),
);

export const ownerTriggerDelete = handle(
  TriggerOwnerEndpoints.remove,
  async (caller, { accountId, id }, { control }: TriggerHandlerDeps) => {
    await control.remove(await control.find(accountId, id), ownerActor(caller));
    return { id, deleted: true as const };
  },
);

export const ownerTriggerRun = handle(
  TriggerOwnerEndpoints.run,
  async (caller, { accountId, id }, { control }: TriggerHandlerDeps) => {
    const run = await control.runNow(await control.find(accountId, id), ownerActor(caller));
    return queuedRunView(run);
  },
);

export const ownerTriggerMemory = handle(
  TriggerOwnerEndpoints.memory,
  async (caller, { accountId, id, enabled }, { control }: TriggerHandlerDeps) =>
    ownerView(
      control,
      await control.setSaveOutputToMemory(await control.find(accountId, id), enabled, ownerActor(caller)),
    ),
);
