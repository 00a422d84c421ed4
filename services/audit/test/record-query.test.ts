/**
 * The owner's query (AuditRecords.page) on a real PostgreSQL, as the service's own role: only the
 * account asked for, newest first, paged by seq without a gap or a repeat, each filter on its own,
 * a path prefix taken literally, rows as the contracts' AuditRecord with numbers as numbers, and a
 * plan that walks the (account_id[, agent_id], seq DESC) indexes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AuditEvent, AuditRecord } from '@pag/contracts';
import { AuditRecord as AuditRecordSchema } from '@pag/contracts';
import { Prisma } from '../src/generated/prisma/client.ts';
import type { OpenAuditLog } from '../src/store/open-audit-log.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import type { OpenAuditRecords } from '../src/store/record-query.ts';
import { likePrefix, openAuditRecords, pageSql } from '../src/store/record-query.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { actionEvent, requestEvent } from './support/events.ts';

let database: AuditDatabase;
let writer: OpenAuditLog;
let reader: OpenAuditRecords;
beforeAll(async () => {
  database = await startAuditDatabase();
  writer = openAuditLog({ databaseUrl: database.serviceUrl });
  reader = openAuditRecords({ databaseUrl: database.serviceUrl });
}, 60_000);
afterAll(async () => {
  await writer?.close();
  await reader?.close();
  await database?.close();
});

/** Appends the events one by one, so their order is the order of seq. */
async function store(events: AuditEvent[]): Promise<void> {
  for (const event of events) await writer.log.append([event]);
}

const page = (query: Parameters<OpenAuditRecords['records']['page']>[0]) => reader.records.page(query);
const paths = (records: AuditRecord[]) => records.map((record) => record.path);

describe('tenancy and order', () => {
  test('an account sees only its own rows, newest first, with other accounts writing in between', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await store([
      requestEvent({ accountId: a, path: '/a/1' }),
      requestEvent({ accountId: b, path: '/b/1' }),
      requestEvent({ accountId: a, path: '/a/2' }),
      requestEvent({ accountId: null, clientId: null, agentId: null, path: '/anonymous' }),
      actionEvent({ accountId: b }),
    ]);
    const ofA = await page({ accountId: a });
    expect(paths(ofA.records)).toEqual(['/a/2', '/a/1']);
    expect(ofA.records.every((record) => record.accountId === a)).toBe(true);
    expect(ofA.nextBefore).toBeNull();
    const ofB = await page({ accountId: b });
    expect(ofB.records.map((record) => record.action)).toEqual(['proxy.call', 'http.request']);
    expect(ofB.records.every((record) => record.accountId === b)).toBe(true);
    expect((await page({ accountId: randomUUID() })).records).toEqual([]);
  });

  test('pages by seq: every row once, nextBefore null on the last page, even when it is full', async () => {
    const account = randomUUID();
    await store(
      Array.from({ length: 7 }, (_, index) => requestEvent({ accountId: account, path: `/p/${index}` })),
    );
    const seen: string[] = [];
    let before: number | undefined;
    const sizes: number[] = [];
    for (;;) {
      const next = await page({ accountId: account, limit: 3, ...(before === undefined ? {} : { before }) });
      sizes.push(next.records.length);
      seen.push(...paths(next.records).map(String));
      if (next.nextBefore === null) break;
      expect(next.nextBefore).toBe(next.records.at(-1)?.seq);
      before = next.nextBefore;
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(['/p/6', '/p/5', '/p/4', '/p/3', '/p/2', '/p/1', '/p/0']);
    // Exactly one page's worth: no "older" page that would be empty.
    expect((await page({ accountId: account, limit: 7 })).nextBefore).toBeNull();
    // A row appended while paging does not move the pages already defined by seq.
    const first = await page({ accountId: account, limit: 3 });
    await store([requestEvent({ accountId: account, path: '/p/7' })]);
    const second = await page({ accountId: account, limit: 3, before: first.nextBefore ?? 0 });
    expect(paths(second.records)).toEqual(['/p/3', '/p/2', '/p/1']);
  });
});

describe('filters', () => {
  const account = randomUUID();
  beforeAll(async () => {
    await store([
      requestEvent({ accountId: account, agentId: 'agt_x', path: '/api/v1/memory', status: 200 }),
      requestEvent({ accountId: account, agentId: 'agt_y', path: '/api/v1/memory/1', status: 204 }),
      requestEvent({
        accountId: account,
        agentId: 'agt_x',
        path: '/api/v1/services/github',
        status: 403,
        decision: 'denied',
        reason: 'INSUFFICIENT_SCOPE',
      }),
      requestEvent({ accountId: account, agentId: 'agt_y', path: '/a%b/c', status: 404, decision: 'denied' }),
      requestEvent({ accountId: account, agentId: 'agt_y', path: '/axb/c', status: 500, decision: 'error' }),
      requestEvent({ accountId: account, agentId: 'agt_x', path: '/a_b', status: 429, decision: 'denied' }),
      requestEvent({ accountId: account, agentId: 'agt_x', path: '/acb', status: 200 }),
      actionEvent({ accountId: account, agentId: 'agt_x', status: 502, decision: 'error' }),
    ]);
  });

  test('by agent', async () => {
    const { records } = await page({ accountId: account, agentId: 'agt_y' });
    expect(paths(records)).toEqual(['/axb/c', '/a%b/c', '/api/v1/memory/1']);
  });

  test('by one status, or by a class of statuses', async () => {
    expect(paths((await page({ accountId: account, status: 200 })).records)).toEqual([
      '/acb',
      '/api/v1/memory',
    ]);
    expect(paths((await page({ accountId: account, status: '2xx' })).records)).toEqual([
      '/acb',
      '/api/v1/memory/1',
      '/api/v1/memory',
    ]);
    expect(paths((await page({ accountId: account, status: '4xx' })).records)).toEqual([
      '/a_b',
      '/a%b/c',
      '/api/v1/services/github',
    ]);
    const fives = (await page({ accountId: account, status: '5xx' })).records;
    expect(fives.map((record) => record.status)).toEqual([502, 500]);
  });

  test('by decision', async () => {
    const { records } = await page({ accountId: account, decision: 'error' });
    expect(records.map((record) => record.action)).toEqual(['proxy.call', 'http.request']);
  });

  test('by path prefix, taken literally: % and _ match only themselves', async () => {
    expect(paths((await page({ accountId: account, pathPrefix: '/api/v1/memory' })).records)).toEqual([
      '/api/v1/memory/1',
      '/api/v1/memory',
    ]);
    expect(paths((await page({ accountId: account, pathPrefix: '/a%' })).records)).toEqual(['/a%b/c']);
    expect(paths((await page({ accountId: account, pathPrefix: '/a_' })).records)).toEqual(['/a_b']);
    expect(likePrefix('/a\\b%_')).toBe('/a\\\\b\\%\\_%');
  });

  test('filters combine', async () => {
    const { records } = await page({ accountId: account, agentId: 'agt_x', status: '4xx', pathPrefix: '/a' });
    expect(paths(records)).toEqual(['/a_b', '/api/v1/services/github']);
  });
});

test('by time: since is inclusive, until exclusive', async () => {
  const account = randomUUID();
  const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.000Z`;
  await store(
    [0, 10, 20, 30].map((minute) =>
      requestEvent({ accountId: account, time: at(minute), path: `/${minute}` }),
    ),
  );
  const { records } = await page({ accountId: account, since: at(10), until: at(30) });
  expect(paths(records)).toEqual(['/20', '/10']);
});

test('rows are AuditRecords: numbers as numbers, action fields, no chain internals', async () => {
  const account = randomUUID();
  await store([
    requestEvent({ accountId: account, latencyMs: 12.3456, bytesIn: 10, bytesOut: 2048 }),
    actionEvent({ accountId: account, target: 'github', detail: { method: 'GET', attempts: 2 } }),
  ]);
  const { records } = await page({ accountId: account });
  for (const record of records) expect(AuditRecordSchema.parse(record)).toEqual(record);
  const [action, request] = records;
  expect(request).toMatchObject({
    kind: 'request',
    latencyMs: 12.346,
    bytesIn: 10,
    bytesOut: 2048,
    status: 200,
  });
  expect(typeof request?.seq).toBe('number');
  expect(action).toMatchObject({
    kind: 'action',
    action: 'proxy.call',
    target: 'github',
    actorType: 'agent',
    method: null,
    detail: { method: 'GET', attempts: 2 },
  });
  expect(Object.keys(request ?? {})).not.toContain('prevHash');
});

test('a query without a valid account is refused before any SQL', async () => {
  await expect(page({ accountId: 'not-a-uuid' })).rejects.toThrow();
  await expect(page({ accountId: randomUUID(), limit: 201 })).rejects.toThrow();
});

describe('the plan', () => {
  const busy = randomUUID();
  beforeAll(async () => {
    // A hundred accounts, so one account's rows are a small part of the table, as in production
    // (when one account holds a large share of a small table, walking the primary key backwards
    // and skipping the others' rows is cheaper, and the planner rightly does that).
    const events: AuditEvent[] = [];
    for (let index = 0; index < 10_000; index += 1) {
      const accountId =
        index % 100 === 0 ? busy : `00000000-0000-4000-8000-${String(index % 100).padStart(12, '0')}`;
      events.push(requestEvent({ accountId, agentId: `agt_${index % 7}` }));
    }
    for (let start = 0; start < events.length; start += 500)
      await writer.log.append(events.slice(start, start + 500));
    await database.owner.$executeRawUnsafe('ANALYZE audit.records');
  }, 60_000);

  const plan = async (query: Parameters<typeof pageSql>[0]) => {
    const rows = await database.owner.$queryRaw<{ 'QUERY PLAN': unknown }[]>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${pageSql(query)}`,
    );
    return JSON.stringify(rows[0]?.['QUERY PLAN']);
  };

  test('an account walks (account_id, seq DESC); with an agent, (account_id, agent_id, seq DESC)', async () => {
    const base = { accountId: busy, limit: 50 };
    expect(await plan(base)).toContain('"Index Name":"records_account_id_seq_idx"');
    expect(await plan({ ...base, before: 8000, status: '2xx' })).toContain(
      '"Index Name":"records_account_id_seq_idx"',
    );
    expect(await plan({ ...base, agentId: 'agt_3' })).toContain(
      '"Index Name":"records_account_id_agent_id_seq_idx"',
    );
    expect(await plan(base)).not.toContain('"Node Type":"Sort"');
  });
});
