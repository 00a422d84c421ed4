/**
 * audit.records.list answered by the running service (testkit's startService, the service as its
 * own role), asked the way the auth service asks (kit's requestEndpoint): one owner's page, and a
 * malformed query refused with 400 INVALID_REQUEST naming the field.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { AppError, AuditEndpoints } from '@pag/contracts';
import { requestEndpoint } from '@pag/kit';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import { requestEvent } from './support/events.ts';
import type { TestAudit } from './support/start-test-audit.ts';
import { startTestAudit } from './support/start-test-audit.ts';

let t: TestAudit;
beforeAll(async () => {
  t = await startTestAudit();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const ask = (query: Record<string, unknown>) =>
  requestEndpoint(t.bus, AuditEndpoints.recordsList, query as never, { timeoutMs: 10_000 });

test("answers one owner's rows, newest first, with the cursor of the next page", async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  await using writer = openAuditLog({ databaseUrl: t.config.databaseUrl });
  for (const [accountId, path] of [
    [a, '/a/1'],
    [b, '/b/1'],
    [a, '/a/2'],
    [a, '/a/3'],
  ] as const)
    await writer.log.append([requestEvent({ accountId, path })]);
  const first = await ask({ accountId: a, limit: 2 });
  expect(first.records.map((record) => record.path)).toEqual(['/a/3', '/a/2']);
  expect(first.nextBefore).toBe(first.records[1]?.seq);
  const second = await ask({ accountId: a, limit: 2, before: first.nextBefore });
  expect(second).toEqual({
    records: [expect.objectContaining({ path: '/a/1', accountId: a })],
    nextBefore: null,
  });
});

test('a malformed query is 400 INVALID_REQUEST naming the field', async () => {
  const refused = await ask({ accountId: 'someone', limit: 5 }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(AppError);
  expect(refused).toMatchObject({ code: 'INVALID_REQUEST' });
  expect((refused as AppError).message).toContain('accountId');
});
