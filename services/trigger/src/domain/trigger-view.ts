/**
 * A stored trigger and its runs as the contracts show them (Trigger, TriggerRunRecord): the
 * instants in UTC, the next run also in the trigger's own time zone, a run's error as one object.
 * The rows are the store's (their shape is the Prisma models'); nothing here reads the database.
 */
import type { Trigger, TriggerRunRecord } from '@pag/contracts';
import { TriggerSchedule } from '@pag/contracts';
import { localIso } from '../schedule/next-run.ts';

export interface TriggerRow {
  id: string;
  accountId: string;
  createdByAgent: string;
  createdByClient: string | null;
  name: string;
  /** The contracts' TriggerSchedule, as stored (JSON). */
  schedule: unknown;
  timezone: string;
  actionType: string;
  prompt: string;
  services: string[];
  saveOutputToMemory: boolean;
  scopes: string[];
  status: string;
  statusReason: string | null;
  anchorAt: Date | null;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RunRow {
  id: string;
  seq: bigint;
  triggerId: string;
  cause: string;
  late: boolean;
  status: string;
  scheduledFor: Date;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  attempts: number;
  output: string | null;
  model: string | null;
  memoryId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/** The stored schedule, checked by the contracts' schema (every row was written through it). */
export function scheduleOf(row: Pick<TriggerRow, 'schedule'>): TriggerSchedule {
  return TriggerSchedule.parse(row.schedule);
}

export function runRecord(run: RunRow): TriggerRunRecord {
  return {
    id: run.id,
    triggerId: run.triggerId,
    cause: run.cause as TriggerRunRecord['cause'],
    late: run.late,
    status: run.status as TriggerRunRecord['status'],
    scheduledFor: run.scheduledFor.toISOString(),
    queuedAt: run.queuedAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    attempts: run.attempts,
    output: run.output,
    model: run.model,
    memoryId: run.memoryId,
    error: run.errorCode === null ? null : { code: run.errorCode, message: run.errorMessage ?? '' },
  };
}

export function triggerView(row: TriggerRow, lastRun: RunRow | null): Trigger {
  return {
    id: row.id,
    name: row.name,
    kind: 'schedule',
    schedule: scheduleOf(row),
    timezone: row.timezone,
    actionType: 'ai_prompt',
    action: { prompt: row.prompt, services: row.services, saveOutputToMemory: row.saveOutputToMemory },
    status: row.status as Trigger['status'],
    statusReason: row.statusReason,
    createdBy: row.createdByAgent,
    scopes: row.scopes,
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
    nextRunAtLocal: row.nextRunAt === null ? null : localIso(row.nextRunAt, row.timezone),
    lastRun: lastRun === null ? null : runRecord(lastRun),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
