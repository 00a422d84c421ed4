/**
 * The NDJSON export of /dashboard/audit against an audit service that fails part-way (a stand-in
 * answering audit.records.list on the test's bus): the first page is sent, then the answer is cut
 * off (the connection reset, no clean end), so a download that ends cleanly is always complete.
 * The page asks for the signed-in owner's account and nothing else.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { AuditQuery, AuditRecord } from '@pag/contracts';
import { AppError, AuditEndpoints } from '@pag/contracts';
import { Browser, signUp } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let owner: Browser;
const asked: AuditQuery[] = [];

function record(accountId: string, seq: number): AuditRecord {
  return {
    seq,
    eventId: crypto.randomUUID(),
    kind: 'request',
    source: 'gateway',
    requestId: `req-${seq}`,
    time: '2026-11-24T06:00:00.000Z',
    recordedAt: '2026-11-24T06:00:00.001Z',
    accountId,
    clientId: 'client-1',
    agentId: null,
    tokenKind: 'dashboard',
    actorType: null,
    actorId: null,
    action: 'http.request',
    target: null,
    clientAddress: '127.0.0.1',
    method: 'GET',
    path: `/api/v1/memory/${seq}`,
    status: 200,
    decision: 'allowed',
    reason: null,
    latencyMs: 1,
    bytesIn: 0,
    bytesOut: 10,
    detail: {},
    hash: '0'.repeat(64),
  };
}

beforeAll(async () => {
  t = await startTestAuth();
  owner = new Browser(t.url);
  await signUp(owner, { email: 'owner@export.test', password: 'a long enough password' });
  await t.bus.handle<AuditQuery>(
    AuditEndpoints.recordsList.subject,
    async ({ data }) => {
      asked.push(data);
      if (data.before !== undefined) throw new AppError('UPSTREAM_ERROR', 'the database went away');
      return { records: [record(data.accountId, 9), record(data.accountId, 8)], nextBefore: 8 };
    },
    { queue: 'audit' },
  );
}, 60_000);
afterAll(async () => {
  await t?.close();
});

test('a failure after the first page cuts the download off instead of ending it', async () => {
  const response = await owner.get('/dashboard/audit/export.ndjson');
  expect(response.status).toBe(200);
  await expect(response.text()).rejects.toThrow();
  const account = (await t.db.account.findUniqueOrThrow({ where: { email: 'owner@export.test' } })).id;
  expect(asked).toEqual([
    { accountId: account, limit: 200 },
    { accountId: account, limit: 200, before: 8 },
  ]);
});
