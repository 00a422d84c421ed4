/**
 * Retention drops whole old segments and leaves a log that still verifies: the remaining rows
 * chain on from a signed checkpoint at the last pruned seq. The newest row always stays, a young
 * row keeps its segment, and audit.prune_through refuses a prefix without a matching anchor.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { verifyCheckpoint } from '../src/checkpoints/checkpoint-signature.ts';
import { signingKeyFromSeed, verifyKeys } from '../src/checkpoints/signing-keys.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { RetentionOptions } from '../src/retention/retention-task.ts';
import { retentionTask } from '../src/retention/retention-task.ts';
import { CheckpointStore } from '../src/store/checkpoint-store.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import { RetentionStore } from '../src/store/retention-store.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { newSigningKey } from './support/audit-login.ts';
import { chainProblem } from './support/chain-check.ts';
import { requestEvent } from './support/events.ts';

const DAY_MS = 86_400_000;
const NOW = new Date();
const SEED = newSigningKey();

let database: AuditDatabase;
let asService: PrismaClient;
let options: RetentionOptions;
beforeAll(async () => {
  database = await startAuditDatabase();
  asService = createPrismaClient(PrismaClient, { databaseUrl: database.serviceUrl, schema: 'audit' });
  const checkpoints = new CheckpointStore(asService);
  options = {
    retentionDays: 30,
    segmentRows: 10,
    store: new RetentionStore(asService),
    checkpoints,
    head: async () => {
      await using writer = openAuditLog({ databaseUrl: database.serviceUrl });
      const head = await writer.log.head();
      return head;
    },
    key: signingKeyFromSeed(SEED),
    now: () => NOW,
  };
}, 60_000);
afterAll(async () => {
  await asService?.$disconnect();
  await database?.close();
});

/** `n` rows recorded `daysAgo` days before NOW, in batches of 4. */
async function appendAged(n: number, daysAgo: number): Promise<void> {
  await using writer = openAuditLog({
    databaseUrl: database.serviceUrl,
    now: () => new Date(NOW.getTime() - daysAgo * DAY_MS),
  });
  for (let left = n; left > 0; left -= 4)
    await writer.log.append(Array.from({ length: Math.min(4, left) }, () => requestEvent()));
}

const trusted = verifyKeys(SEED, []);

/** The remaining rows chain on from the signed checkpoint just below the first one. */
async function expectVerifiableFrom(firstSeq: number): Promise<void> {
  const rows = await database.records();
  expect(rows[0]?.seq).toBe(firstSeq);
  const anchor = await options.checkpoints.at(firstSeq - 1);
  expect(anchor).not.toBeNull();
  expect(verifyCheckpoint(anchor as NonNullable<typeof anchor>, trusted)).toBe('valid');
  expect(chainProblem(rows, anchor as NonNullable<typeof anchor>)).toBeNull();
}

describe('retention', () => {
  test('drops whole old segments below the head, anchored by a signed checkpoint; the rest still chains', async () => {
    await appendAged(30, 40);
    // Segments of 10: 1..10 and 11..20 go; 21..30 holds the head (seq 30), which always stays.
    expect(await retentionTask(options).run()).toBe(20);
    await expectVerifiableFrom(21);
    expect(await retentionTask(options).run()).toBe(0);
    expect(await database.records()).toHaveLength(10);
  });

  test('a segment goes only when every row in it is old; later runs go on from the anchor', async () => {
    await appendAged(3, 1); // 31..33, young (1 day < 30)
    await appendAged(8, 40); // 34..41: old, but segment 31..40 holds the young ones
    expect(await retentionTask(options).run()).toBe(10); // 21..30 only
    await expectVerifiableFrom(31);
    expect(await retentionTask(options).run()).toBe(0);
  });

  test('keep forever: nothing is dropped', async () => {
    expect(
      await retentionTask({
        ...options,
        retentionDays: 0,
        now: () => new Date(NOW.getTime() + DAY_MS),
      }).run(),
    ).toBe(0);
  });
});

describe('audit.prune_through, as the service role', () => {
  const prune = (through: number) => asService.$queryRawUnsafe(`SELECT audit.prune_through(${through})`);

  test('refuses a prefix without a checkpoint at its end', async () => {
    await expect(prune(35)).rejects.toThrow(/no checkpoint at 35/);
  });

  test("refuses a checkpoint whose hash is not the row's", async () => {
    await asService.$executeRawUnsafe(`INSERT INTO audit.checkpoints (seq, hash, signed_at, key_id, signature)
      VALUES (35, '${'0'.repeat(64)}', now(), 'k', 's')`);
    await expect(prune(35)).rejects.toThrow(/does not match record 35/);
  });

  test('refuses to leave no record', async () => {
    const rows = await database.records();
    const last = rows.at(-1) as (typeof rows)[number];
    await asService.$executeRawUnsafe(`INSERT INTO audit.checkpoints (seq, hash, signed_at, key_id, signature)
      VALUES (${last.seq}, '${last.hash}', now(), 'k', 's')`);
    await expect(prune(last.seq)).rejects.toThrow(/would leave no record/);
  });

  test('a prefix already pruned: nothing to do', async () => {
    await expect(prune(20)).resolves.toEqual([{ prune_through: 0n }]);
  });
});
