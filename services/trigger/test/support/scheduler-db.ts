/**
 * What the scheduler tests share: a real PostgreSQL with the trigger migrations applied, the
 * service's pool (kit's sqlPoolOf of its Prisma client, as the service builds it), triggers and
 * runs written as the API writes them, the rows read back, and a recording executor.
 */
import { fileURLToPath } from 'node:url';
import type { ActionAuditEvent, TriggerSchedule } from '@pag/contracts';
import type { ActionAuditPublisher, Logger } from '@pag/kit';
import { actionAuditEvent, applyMigrations, createLogger, createPrismaClient, sqlPoolOf } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { newId } from '../../src/domain/resource-id.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import type {
  ClaimedRun,
  RunExecutor,
  RunOutcome,
  SchedulerSettings,
  SqlPool,
} from '../../src/scheduler/types.ts';

export const TRIGGER_MIGRATIONS = {
  schema: 'trigger',
  migrationsDir: fileURLToPath(new URL('../../prisma/migrations', import.meta.url)),
} as const;

export const ACCOUNT = '6f1c2b9e-3a4d-4e5f-8a7b-9c0d1e2f3a4b';
export const AGENT = 'agt_scheduler_test';

/** The defaults of the design, with a tick long enough that the tests drive the passes. */
export const SETTINGS: SchedulerSettings = {
  tickMs: 60_000,
  lateGraceMs: 60_000,
  runLeaseMs: 60_000,
  runTimeoutMs: 150_000,
  concurrency: 4,
  planBatch: 100,
};

export const quietLogger: Logger = createLogger({ service: 'trigger-test', level: 'silent' });

export interface NewTrigger {
  schedule: TriggerSchedule;
  /** The creating agent; AGENT unless given. */
  agentId?: string;
  timezone?: string;
  nextRunAt: Date | null;
  anchorAt?: Date | null;
  status?: 'active' | 'paused';
  services?: string[];
  scopes?: string[];
  clientId?: string | null;
  saveOutputToMemory?: boolean;
}

export interface RunRow {
  id: string;
  trigger_id: string;
  cause: string;
  late: boolean;
  status: string;
  scheduled_for: Date;
  started_at: Date | null;
  finished_at: Date | null;
  attempts: number;
  lease_until: Date | null;
  output: string | null;
  model: string | null;
  memory_id: string | null;
  error_code: string | null;
  error_message: string | null;
}

export interface TriggerRow {
  id: string;
  status: string;
  status_reason: string | null;
  next_run_at: Date | null;
  last_run_at: Date | null;
}

export interface SchedulerDb extends AsyncDisposable {
  readonly postgres: TestPostgres;
  readonly pool: SqlPool;
  /** Another pool on the same database, as another replica's process has (closed with the rest). */
  replicaPool(): SqlPool;
  insertTrigger(trigger: NewTrigger): Promise<string>;
  /** A run now, as POST /api/v1/triggers/:id/run queues it. */
  queueManualRun(triggerId: string, at: Date): Promise<string>;
  runs(triggerId?: string): Promise<RunRow[]>;
  trigger(id: string): Promise<TriggerRow>;
  /** Every trigger and run gone, for the next test. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export async function startSchedulerDb(): Promise<SchedulerDb> {
  const postgres = await startTestPostgres();
  try {
    await applyMigrations({ databaseUrl: postgres.url, ...TRIGGER_MIGRATIONS });
    const prisma = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: 'trigger' });
    const pool = sqlPoolOf(prisma);
    const clients = [prisma];
    const close = async () => {
      for (const client of clients) await client.$disconnect();
      await postgres.stop();
    };
    return {
      postgres,
      pool,
      replicaPool() {
        const client = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: 'trigger' });
        clients.push(client);
        return sqlPoolOf(client);
      },
      insertTrigger: (trigger) => insertTrigger(pool, trigger),
      async queueManualRun(triggerId, at) {
        const id = newId('run');
        await pool.query(
          `INSERT INTO "trigger".runs (id, trigger_id, account_id, cause, scheduled_for, queued_at)
           VALUES ($1, $2, $3, 'manual', $4, $4)`,
          [id, triggerId, ACCOUNT, at],
        );
        return id;
      },
      async runs(triggerId) {
        const { rows } = await pool.query<RunRow>(
          `SELECT id, trigger_id, cause, late, status, scheduled_for, started_at, finished_at, attempts,
                  lease_until, output, model, memory_id, error_code, error_message
             FROM "trigger".runs WHERE $1::text IS NULL OR trigger_id = $1 ORDER BY seq`,
          [triggerId ?? null],
        );
        return rows;
      },
      async trigger(id) {
        const { rows } = await pool.query<TriggerRow>(
          `SELECT id, status, status_reason, next_run_at, last_run_at FROM "trigger".triggers WHERE id = $1`,
          [id],
        );
        const [row] = rows;
        if (row === undefined) throw new Error(`no trigger ${id}`);
        return row;
      },
      async clear() {
        await pool.query('TRUNCATE "trigger".triggers, "trigger".runs');
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

async function insertTrigger(pool: SqlPool, trigger: NewTrigger): Promise<string> {
  const id = newId('trigger');
  const services = trigger.services ?? [];
  await pool.query(
    `INSERT INTO "trigger".triggers (id, account_id, created_by_agent, created_by_client, name, schedule,
                                     timezone, action_type, prompt, services, save_output_to_memory,
                                     scopes, status, anchor_at, next_run_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'ai_prompt', $8, $9, $10, $11, $12, $13, $14)`,
    [
      id,
      ACCOUNT,
      trigger.agentId ?? AGENT,
      trigger.clientId === undefined ? 'client_scheduler_test' : trigger.clientId,
      `test ${id}`,
      JSON.stringify(trigger.schedule),
      trigger.timezone ?? 'UTC',
      `Summarise ${services.join(' and ') || 'the day'}.`,
      services,
      trigger.saveOutputToMemory ?? false,
      trigger.scopes ?? ['chat', ...services.map((service) => `services:${service}:read`)],
      trigger.status ?? 'active',
      trigger.anchorAt ?? null,
      trigger.nextRunAt,
    ],
  );
  return id;
}

/** An executor that notes every run it is given and answers at once (after a turn of the loop). */
export interface RecordingExecutor {
  readonly executor: RunExecutor;
  readonly calls: ClaimedRun[];
}

export function recordingExecutor(
  answer: (run: ClaimedRun) => RunOutcome = () => ({
    status: 'succeeded',
    output: 'done',
    model: 'offline',
    memoryId: null,
  }),
): RecordingExecutor {
  const calls: ClaimedRun[] = [];
  return {
    calls,
    executor: async (run) => {
      calls.push(run);
      await new Promise((resolve) => setImmediate(resolve));
      return answer(run);
    },
  };
}

/** A start of a minute some minutes ago: a due time every schedule type can name. */
export function minuteAgo(minutes: number, from = new Date()): Date {
  const at = new Date(from.getTime() - minutes * 60_000);
  at.setUTCSeconds(0, 0);
  return at;
}

/** An audit publisher that keeps each event, built and checked as kit's publisher builds them. */
export function recordingAudit(): { audit: ActionAuditPublisher; events: ActionAuditEvent[] } {
  const events: ActionAuditEvent[] = [];
  return {
    events,
    audit: {
      record: (input) => {
        events.push(actionAuditEvent('trigger', input));
      },
      close: async () => undefined,
    },
  };
}
