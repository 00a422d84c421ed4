/**
 * Triggers as the endpoints answer them: each with its newest run (Trigger.lastRun), or, for the
 * owner, its newest runs and its schedule in words (OwnerTrigger).
 */
import type { OwnerTrigger, Trigger, TriggerRun } from '@pag/contracts';
import type { TriggerControl } from '../control/trigger-control.ts';
import type { RunRow, TriggerRow } from '../domain/trigger-view.ts';
import { runRecord, scheduleOf, triggerView } from '../domain/trigger-view.ts';
import { describeSchedule } from '../schedule/describe-schedule.ts';

/** The 202 of run now, for an agent or the owner: the manual run just queued. */
export function queuedRunView(run: RunRow): TriggerRun {
  return { runId: run.id, triggerId: run.triggerId, status: 'queued', queuedAt: run.queuedAt.toISOString() };
}

export async function triggerViews(
  control: TriggerControl,
  accountId: string,
  rows: TriggerRow[],
): Promise<Trigger[]> {
  const ids = rows.map((row) => row.id);
  const runs = await control.store.recentRuns(accountId, ids, 1);
  return rows.map((row) => triggerView(row, runs.get(row.id)?.[0] ?? null));
}

export async function oneTriggerView(control: TriggerControl, row: TriggerRow): Promise<Trigger> {
  const runs = await control.store.recentRuns(row.accountId, [row.id], 1);
  return triggerView(row, runs.get(row.id)?.[0] ?? null);
}

/** `count` runs under each trigger (its newest is lastRun even when the owner asked for none). */
export async function ownerTriggerViews(
  control: TriggerControl,
  accountId: string,
  rows: TriggerRow[],
  count: number,
): Promise<OwnerTrigger[]> {
  const ids = rows.map((row) => row.id);
  const runs = await control.store.recentRuns(accountId, ids, Math.max(count, 1));
  return rows.map((row) => ownerTriggerView(row, runs.get(row.id) ?? [], count));
}

function ownerTriggerView(row: TriggerRow, recent: RunRow[], count: number): OwnerTrigger {
  return {
    ...triggerView(row, recent[0] ?? null),
    recentRuns: recent.slice(0, count).map(runRecord),
    scheduleText: describeSchedule(scheduleOf(row), row.timezone),
  };
}

export async function oneOwnerTriggerView(
  control: TriggerControl,
  row: TriggerRow,
  count: number,
): Promise<OwnerTrigger> {
  const runs = await control.store.recentRuns(row.accountId, [row.id], Math.max(count, 1));
  return ownerTriggerView(row, runs.get(row.id) ?? [], count);
}
