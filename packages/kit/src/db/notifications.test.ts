/**
 * listenForNotifications' sync(): once it resolves true, every notification committed before the
 * call has reached the handler, so a cache the handler invalidates may then answer from memory.
 * Callers that come while a round trip is under way share the next one. The listeners of a
 * process share one connection per database.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../log/logger.ts';
import { eventually } from '../testing/eventually.ts';
import type { TestPostgres } from '../testing/postgres.ts';
import { startTestPostgres } from '../testing/postgres.ts';
import type { NotificationListener } from './notifications.ts';
import { listenForNotifications } from './notifications.ts';

/**
 * The round trip's limit of the listeners here that are not about it: a loaded CI machine answers
 * an empty query on loopback well within it (with the default 1 s a stall would read as `false`).
 */
const SYNC_TIMEOUT_MS = 10_000;
const silent = createLogger({ service: 'test', level: 'silent' });

/** A listener of this test's database on `channel`. */
const listen = (
  channel: string,
  handler: (payload: string) => void = () => {},
  syncTimeoutMs = SYNC_TIMEOUT_MS,
): Promise<NotificationListener> =>
  listenForNotifications({ databaseUrl: postgres.url, channel, logger: silent, handler, syncTimeoutMs });

let postgres: TestPostgres;
let writer: pg.Client;
let listener: NotificationListener;
const heard: string[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  writer = new pg.Client({ connectionString: postgres.url });
  await writer.connect();
  listener = await listen('kit_sync_test', (payload) => void heard.push(payload));
}, 60_000);

afterAll(async () => {
  await listener?.close();
  await writer?.end();
  await postgres?.stop();
});

test('a notification committed before sync() is handled when it resolves, every time', async () => {
  for (let round = 0; round < 200; round += 1) {
    await writer.query(`SELECT pg_notify('kit_sync_test', $1)`, [`change ${round}`]);
    expect(await listener.sync()).toBe(true);
    // Without the round trip the notification is usually still on its way here.
    expect(heard.at(-1)).toBe(`change ${round}`);
  }
  expect(heard).toHaveLength(200);
});

test('a notification committed in a transaction is handled by the sync() after its COMMIT', async () => {
  await writer.query('BEGIN');
  await writer.query(`SELECT pg_notify('kit_sync_test', 'in a transaction')`);
  expect(await listener.sync()).toBe(true);
  // Not yet committed: not delivered.
  expect(heard).not.toContain('in a transaction');
  await writer.query('COMMIT');
  expect(await listener.sync()).toBe(true);
  expect(heard.at(-1)).toBe('in a transaction');
});

test('callers that come during a round trip share the next one', async () => {
  const query = jest.spyOn(pg.Client.prototype, 'query');
  try {
    const results = await Promise.all(Array.from({ length: 50 }, () => listener.sync()));
    expect(results.every(Boolean)).toBe(true);
    // The first round trip and one shared by the 49 that came while it was under way.
    expect(query.mock.calls.filter(([text]) => text === '')).toHaveLength(2);
  } finally {
    query.mockRestore();
  }
});

test('a listening connection that hangs answers false after the time-out, and true once it answers', async () => {
  const slow = await listen('kit_sync_hang', () => {}, 300);
  const { rows } = await writer.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'pag-listen-%kit_sync_hang%'`,
  );
  const backend = rows[0]?.pid;
  if (backend === undefined) throw new Error('the listening session was not found');
  // The listeners' backend stopped: the round trip cannot end.
  process.kill(backend, 'SIGSTOP');
  try {
    const started = Date.now();
    expect(await slow.sync()).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_000);
  } finally {
    process.kill(backend, 'SIGCONT');
  }
  // Once resumed it answers again: waited for, since each round trip still has only 300 ms and
  // the resumed backend first answers the round trip that timed out.
  await eventually(async () => expect(await slow.sync()).toBe(true), {
    what: 'the resumed listener completes a round trip',
    timeoutMs: 10_000,
  });
  await slow.close();
});

test('a reply that came while this process was stalled past the time-out still counts', async () => {
  const stalled = await listen('kit_sync_stall', () => {}, 100);
  try {
    // The empty query is written at the call; the thread then blocks (no event loop turn, no CPU)
    // ten times the time-out while PostgreSQL answers. When it wakes, the timer is due and the
    // reply is waiting in the socket: without the deferral the timer won (false).
    const synced = stalled.sync();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
    expect(await synced).toBe(true);
  } finally {
    await stalled.close();
  }
});

test('a closed listener promises nothing', async () => {
  const other = await listen('kit_sync_test');
  expect(await other.sync()).toBe(true);
  await other.close();
  expect(await other.sync()).toBe(false);
});

test('listeners of one database share one connection, each hearing its own channel, until the last closes', async () => {
  const backends = async () =>
    (
      await writer.query<{ name: string }>(
        `SELECT application_name AS name FROM pg_stat_activity WHERE application_name LIKE 'pag-listen-%'`,
      )
    ).rows.map((row) => row.name);
  const first: string[] = [];
  const second: string[] = [];
  const a = await listen('kit_shared_a', (payload) => void first.push(payload));
  const b = await listen('kit_shared_b', (payload) => void second.push(payload));
  expect(await backends()).toEqual(['pag-listen-kit_sync_test,kit_shared_a,kit_shared_b']);
  await writer.query(`SELECT pg_notify('kit_shared_a', 'for a'), pg_notify('kit_shared_b', 'for b')`);
  expect(await a.sync()).toBe(true);
  expect(first).toEqual(['for a']);
  expect(second).toEqual(['for b']);
  // b gone: its channel is no longer heard, a's still is, on the same connection.
  await b.close();
  await writer.query(`SELECT pg_notify('kit_shared_a', 'again'), pg_notify('kit_shared_b', 'unheard')`);
  expect(await a.sync()).toBe(true);
  expect(first).toEqual(['for a', 'again']);
  expect(second).toEqual(['for b']);
  await a.close();
  await listener.close();
  // The backend leaves pg_stat_activity shortly after the connection closed.
  await eventually(async () => expect(await backends()).toEqual([]), {
    what: 'the listening backend is gone',
    timeoutMs: 5_000,
  });
  // A listener after the last one closed opens a new connection.
  listener = await listen('kit_sync_test', (payload) => void heard.push(payload));
  await writer.query(`SELECT pg_notify('kit_sync_test', 'after reopening')`);
  expect(await listener.sync()).toBe(true);
  expect(heard.at(-1)).toBe('after reopening');
});
