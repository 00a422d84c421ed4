/**
 * The writer (AuditLog.append) on a real PostgreSQL, as the service's own role: batches from
 * writers racing each other become one chain without a gap or a fork; an event id is stored once;
 * a batch that cannot be stored whole is not stored at all.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createLogger } from '@pag/kit';
import { InvalidAuditEventError } from '../src/store/audit-log.ts';
import { AUDIT_LOGIN_ROLE } from '../src/store/login-role.ts';
import type { OpenAuditLog } from '../src/store/open-audit-log.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { chainProblem } from './support/chain-check.ts';
import { actionEvent, requestEvent } from './support/events.ts';

let database: AuditDatabase;
let first: OpenAuditLog;
let second: OpenAuditLog;
beforeAll(async () => {
  database = await startAuditDatabase();
  first = openAuditLog({ databaseUrl: database.serviceUrl });
  second = openAuditLog({ databaseUrl: database.serviceUrl });
}, 60_000);
afterAll(async () => {
  await first?.close();
  await second?.close();
  await database?.close();
});

/** Rows written so far, so that each test looks at its own. */
const count = async () => (await database.records()).length;

describe('appending', () => {
  test('an empty log: the first row follows 64 zeros; request and action events round-trip', async () => {
    const events = [requestEvent({ latencyMs: 12.3456 }), actionEvent()];
    const result = await first.log.append(events);
    expect(result).toMatchObject({ stored: 2, duplicates: 0, head: { seq: 2 } });
    const rows = await database.records();
    expect(chainProblem(rows)).toBeNull();
    expect(rows[0]).toMatchObject({
      seq: 1,
      eventId: events[0]?.eventId,
      latencyMs: 12.346,
      action: 'http.request',
    });
    expect(rows[1]).toMatchObject({
      seq: 2,
      actorType: 'agent',
      action: 'proxy.call',
      detail: { upstream: 'api.github.com', retried: false, attempts: 1 },
    });
    expect(result.head.hash).toBe(rows[1]?.hash);
  });

  test('text needing escaping is stored as sent and hashes as stored: quotes, backslashes, unicode, controls', async () => {
    const before = await count();
    const tricky = 'a "quoted" \\ back\\slash, \u00e9\u4e2d\u{1f600}, tab\t, line\n, \u001f and \u2028';
    const events = [
      requestEvent({ path: `/api/v1/${tricky}`, requestId: tricky, latencyMs: 0.1 + 0.2 }),
      actionEvent({
        target: tricky,
        detail: { note: tricky, count: -7, big: 2 ** 53 - 1, ok: true, empty: null },
      }),
    ];
    expect(await first.log.append(events)).toMatchObject({ stored: 2 });
    const rows = (await database.records()).slice(before);
    expect(chainProblem(await database.records())).toBeNull();
    expect(rows[0]).toMatchObject({ path: `/api/v1/${tricky}`, requestId: tricky, latencyMs: 0.3 });
    expect(rows[1]).toMatchObject({
      target: tricky,
      detail: { note: tricky, count: -7, big: 2 ** 53 - 1, ok: true, empty: null },
    });
  });

  test('two writers appending at once: one chain, no gap, no fork, every event once', async () => {
    const before = await count();
    const batches = (writer: OpenAuditLog) =>
      Array.from({ length: 15 }, () => writer.log.append(Array.from({ length: 8 }, () => requestEvent())));
    const results = await Promise.all([...batches(first), ...batches(second)]);
    expect(results.reduce((sum, result) => sum + result.stored, 0)).toBe(240);
    const rows = await database.records();
    expect(rows).toHaveLength(before + 240);
    expect(chainProblem(rows)).toBeNull();
    // Each batch is a run of consecutive seqs: a batch is one transaction under the lock.
    const heads = results.map((result) => result.head.seq).sort((a, b) => a - b);
    expect(new Set(heads).size).toBe(30);
    expect(heads.at(-1)).toBe(before + 240);
  });

  test('a redelivered event id is stored once, across batches, within one, and from two writers at once', async () => {
    const before = await count();
    const a = requestEvent();
    const b = actionEvent();
    expect(await first.log.append([a, b])).toMatchObject({ stored: 2, duplicates: 0 });
    const c = requestEvent();
    expect(await second.log.append([b, c, c, { ...a, eventId: a.eventId.toUpperCase() }])).toMatchObject({
      stored: 1,
      duplicates: 3,
    });
    const d = actionEvent();
    const both = await Promise.all([first.log.append([d]), second.log.append([d])]);
    expect(both.map((result) => result.stored).sort()).toEqual([0, 1]);
    const rows = await database.records();
    expect(rows).toHaveLength(before + 4);
    expect(rows.slice(before).map((row) => row.eventId)).toEqual([
      a.eventId,
      b.eventId,
      c.eventId,
      d.eventId,
    ]);
    expect(chainProblem(rows)).toBeNull();
  });

  test('nothing new: no row, and the head is where it was', async () => {
    const e = requestEvent();
    const stored = await first.log.append([e]);
    expect(await first.log.append([e])).toEqual({ stored: 0, duplicates: 1, head: stored.head });
    expect(await first.log.append([])).toEqual({ stored: 0, duplicates: 0, head: stored.head });
  });
});

describe('a batch that cannot be stored whole is not stored at all', () => {
  test.each([
    ['not an audit event', { ...requestEvent(), status: 42 }, /status/],
    ['a NUL character', actionEvent({ detail: { note: 'a\u0000b' } }), /detail\.note/],
    ['an unpaired surrogate', requestEvent({ path: '/api/\ud800' }), /path/],
    ['a latency NUMERIC(12,3) cannot hold', requestEvent({ latencyMs: 1e9 }), /latencyMs/],
  ])('%s', async (_, bad, problem) => {
    const before = await database.records();
    const batch = [requestEvent(), bad, requestEvent()];
    const appending = first.log.append(batch as Parameters<typeof first.log.append>[0]);
    await expect(appending).rejects.toThrow(InvalidAuditEventError);
    await expect(appending).rejects.toMatchObject({ index: 1, problem: expect.stringMatching(problem) });
    expect(await database.records()).toEqual(before);
    // The log goes on after it.
    expect(await first.log.append([requestEvent()])).toMatchObject({
      stored: 1,
      head: { seq: before.length + 1 },
    });
  });
});

describe('a database connection that fails while idle', () => {
  test('is logged and replaced: the writer, which only appends (no Prisma query), keeps running', async () => {
    const warned: { msg: string; code?: string }[] = [];
    const terminated = Promise.withResolvers<void>();
    const logger = createLogger({
      service: 'audit',
      level: 'warn',
      destination: {
        write: (line: string) => {
          warned.push(JSON.parse(line));
          terminated.resolve();
        },
      },
    });
    await using writer = openAuditLog({ databaseUrl: database.serviceUrl, logger });
    await writer.log.append([requestEvent()]);
    // The writer's one pooled connection, idle now, ended by the server.
    await database.owner.$queryRaw`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'pag-audit' AND usename = ${AUDIT_LOGIN_ROLE} AND state = 'idle'`;
    await terminated.promise;
    expect(warned).toEqual([
      expect.objectContaining({ msg: 'idle database connection failed', code: '57P01' }),
    ]);
    expect(await writer.log.append([requestEvent()])).toMatchObject({ stored: 1 });
  });
});
