/**
 * The triggers and their runs, for the API, the owner's endpoints and `pag trigger`. Every
 * statement filters by the owner's account (tenancy): another account's id is as unknown as one
 * that never existed. Status changes are conditional updates (`WHERE status IN …`), so a change
 * racing the scheduler's (a trigger it stops, a once trigger it completes) never overwrites it:
 * the caller reads the row again and answers from what is there.
 *
 * The scheduler plans and claims with its own SQL on the same tables (src/scheduler/); what this
 * store writes for it is the trigger's next_run_at and the queued manual runs it picks up.
 */
import type { TriggerSchedule } from '@pag/contracts';
import { newId } from '../domain/resource-id.ts';
import type { RunRow, TriggerRow } from '../domain/trigger-view.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface NewTrigger {
  accountId: string;
  createdByAgent: string;
  createdByClient: string | null;
  name: string;
  schedule: TriggerSchedule;
  timezone: string;
  prompt: string;
  services: string[];
  saveOutputToMemory: boolean;
  scopes: string[];
  anchorAt: Date | null;
  nextRunAt: Date;
}

export type TriggerStatus = 'active' | 'paused' | 'stopped' | 'completed';

export interface RunPage {
  runs: RunRow[];
  /** The seq the next (older) page starts below; null: no older runs. */
  nextBefore: bigint | null;
}

export class TriggerStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async create(input: NewTrigger): Promise<TriggerRow> {
    return this.#prisma.trigger.create({
      data: { id: newId('trigger'), actionType: 'ai_prompt', status: 'active', ...input },
    });
  }

  /** The account's triggers, newest first. */
  async list(accountId: string): Promise<TriggerRow[]> {
    return this.#prisma.trigger.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } });
  }

  async get(accountId: string, id: string): Promise<TriggerRow | null> {
    return this.#prisma.trigger.findFirst({ where: { accountId, id } });
  }

  /** Each trigger's newest `count` runs, newest first (the owner has few triggers: one read each). */
  async recentRuns(
    accountId: string,
    triggerIds: readonly string[],
    count: number,
  ): Promise<Map<string, RunRow[]>> {
    const runs = new Map<string, RunRow[]>(triggerIds.map((id) => [id, []]));
    if (count === 0) return runs;
    await Promise.all(
      triggerIds.map(async (triggerId) => {
        runs.set(
          triggerId,
          await this.#prisma.run.findMany({
            where: { accountId, triggerId },
            orderBy: { seq: 'desc' },
            take: count,
          }),
        );
      }),
    );
    return runs;
  }

  /** Up to `limit` runs of the trigger, newest first, older than `before` (a seq) when given. */
  async runsPage(
    accountId: string,
    triggerId: string,
    options: { limit: number; before: bigint | undefined },
  ): Promise<RunPage> {
    const rows = await this.#prisma.run.findMany({
      where: {
        accountId,
        triggerId,
        ...(options.before === undefined ? {} : { seq: { lt: options.before } }),
      },
      orderBy: { seq: 'desc' },
      take: options.limit + 1,
    });
    const runs = rows.slice(0, options.limit);
    const last = runs.at(-1);
    return { runs, nextBefore: rows.length > options.limit && last !== undefined ? last.seq : null };
  }

  /**
   * A manual run, queued for now (scheduled_for = queued_at = `now`): the scheduler claims it like
   * any queued run. null when the account has no such trigger (deleted meanwhile included).
   */
  async queueManualRun(accountId: string, triggerId: string, now: Date): Promise<RunRow | null> {
    return this.#prisma.$transaction(async (tx) => {
      // FOR SHARE: a delete of the trigger waits for this insert, or this one sees it gone.
      const found = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "trigger"."triggers" WHERE id = ${triggerId} AND account_id = ${accountId}::uuid FOR SHARE`;
      if (found.length === 0) return null;
      return tx.run.create({
        data: {
          id: newId('run'),
          triggerId,
          accountId,
          cause: 'manual',
          status: 'queued',
          scheduledFor: now,
          queuedAt: now,
        },
      });
    });
  }

  /**
   * Sets the status (and next run, statusReason) of the account's trigger when its status is one
   * of `from`. Whether it changed; the caller reads the row again either way.
   */
  async transition(
    accountId: string,
    id: string,
    from: readonly TriggerStatus[],
    to: { status: TriggerStatus; nextRunAt: Date | null; statusReason: string | null },
    now: Date,
  ): Promise<boolean> {
    const changed = await this.#prisma.trigger.updateMany({
      where: { accountId, id, status: { in: [...from] } },
      data: { ...to, updatedAt: now },
    });
    return changed.count > 0;
  }

  async setSaveOutputToMemory(accountId: string, id: string, enabled: boolean, now: Date): Promise<boolean> {
    const changed = await this.#prisma.trigger.updateMany({
      where: { accountId, id },
      data: { saveOutputToMemory: enabled, updatedAt: now },
    });
    return changed.count > 0;
  }

  /** Deletes the account's trigger and (by the foreign key's cascade) its runs. Whether it existed. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const gone = await this.#prisma.trigger.deleteMany({ where: { accountId, id } });
    return gone.count > 0;
  }
}
