/**
 * The audit outbox against a real PostgreSQL: an event is written only if its decision commits;
 * rows go out oldest first and each is deleted only once its publish resolved; two replicas
 * relaying at once publish every row exactly once (FOR UPDATE SKIP LOCKED).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { authDatabase } from '../database.ts';
import { byOperator } from '../events/audit-decisions.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { AuditOutbox, recordDecision } from './audit-outbox.ts';
import type { AccountsTestDatabase } from './test-database.ts';
import { startAccountsTestDatabase } from './test-database.ts';

let database: AccountsTestDatabase;
let outbox: AuditOutbox;

beforeAll(async () => {
  database = await startAccountsTestDatabase();
  outbox = new AuditOutbox(database.db);
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  await database.db.auditOutbox.deleteMany();
});

const ACCOUNT = '00000000-0000-4000-8000-000000000001';

async function decide(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1)
    await database.db.$transaction((tx) =>
      recordDecision(tx, {
        by: byOperator(),
        accountId: ACCOUNT,
        action: 'token.revoke',
        target: `ag_${index}`,
      }),
    );
}

test('a decision rolled back leaves no event', async () => {
  await expect(
    database.db.$transaction(async (tx) => {
      await recordDecision(tx, {
        by: byOperator(),
        accountId: ACCOUNT,
        action: 'token.create',
        target: 'ag_x',
      });
      throw new Error('the decision failed after its event was written');
    }),
  ).rejects.toThrow('the decision failed');
  expect(await outbox.waiting()).toEqual([]);
});

test('a refused publish keeps its row and those not yet sent; the next relay sends them', async () => {
  await decide(3);
  const waiting = await outbox.waiting();
  const second = waiting[1]?.eventId;
  const result = await outbox.relay(async (event) => {
    if (event.eventId === second) throw new Error('the stream refused it');
  });
  expect(result.sent).toBe(2);
  expect(result.failure).toBeInstanceOf(Error);
  expect((await outbox.waiting()).map((event) => event.eventId)).toEqual([second]);
  const sent: string[] = [];
  expect(await outbox.relay(async (event) => void sent.push(event.eventId))).toEqual({ sent: 1 });
  expect(sent).toEqual([second]);
  expect(await outbox.waiting()).toEqual([]);
});

test('two replicas relaying at once publish every row exactly once', async () => {
  await decide(250);
  const expected = (await outbox.waiting()).map((event) => event.eventId);
  const other = createPrismaClient(PrismaClient, {
    databaseUrl: database.postgres.url,
    schema: authDatabase.schema,
  });
  try {
    await other.$queryRaw`SELECT 1`;
    const published: string[] = [];
    const otherDone = Promise.withResolvers<void>();
    // The first replica holds its first batch until the other replica has relayed all it could
    // take: the rows it holds must be skipped by the other, not published twice.
    const first = outbox.relay(async (event) => {
      await otherDone.promise;
      published.push(event.eventId);
    });
    const second = new AuditOutbox(other)
      .relay(async (event) => void published.push(event.eventId))
      .finally(() => otherDone.resolve());
    const [mine, theirs] = await Promise.all([first, second]);
    expect(theirs.sent).toBeGreaterThan(0);
    expect(mine.sent + theirs.sent).toBe(250);
    expect(published.toSorted()).toEqual(expected.toSorted());
    expect(await outbox.waiting()).toEqual([]);
  } finally {
    await other.$disconnect();
  }
});
