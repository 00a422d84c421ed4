/**
 * The owner's read side of the audit log, across the services it joins: the auth service's
 * /dashboard/audit and its NDJSON export ask the audit service over the bus, and `pag audit list`
 * reads the database with the same query. With rows of two owners in one log:
 * - owner B never sees a row of owner A on the page, in the export or in `pag audit list`;
 * - the page needs a signed-in owner, shows agents by name, escapes every value, filters and
 *   pages by seq; a bad filter is a 400 page saying why;
 * - the export is NDJSON of AuditRecords, every matching row (more than one page of 200);
 * - with no audit service answering, the page and the export say the log is unavailable (503).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AuditEvent } from '@pag/contracts';
import { AuditRecord } from '@pag/contracts';
import type { Page } from '@pag/testkit';
import { Browser, signUp } from '@pag/testkit';
import { eventually } from '../packages/kit/src/testing/mod.ts';
import { runCli } from '../packages/stack/src/cli/run-cli.ts';
import type { AuditBeside } from '../services/audit/test/support/audit-beside.ts';
import { startAuditBeside } from '../services/audit/test/support/audit-beside.ts';
import { actionEvent, requestEvent } from '../services/audit/test/support/events.ts';
import type { TestAuth } from '../services/auth/test/support/start-test-auth.ts';
import { startTestAuth } from '../services/auth/test/support/start-test-auth.ts';

const ALICE = { email: 'alice@audit.test', password: 'alice long password' };
const BOB = { email: 'bob@audit.test', password: 'bob long password here' };
const ALICE_MARK = '/api/v1/alice-only';
const BOB_MARK = '/api/v1/bob-only';
const HOSTILE_PATH = '/api/v1/<script>alert(1)</script>';
/** More than one export page (200) and more than one dashboard page (50). */
const ALICE_ROWS = 230;
/**
 * The rows the auth service writes itself for each owner (docs/adr/0041): the sign-up
 * (`owner.create`) and the dashboard token (`token.create`).
 */
const DECISION_ROWS = 2;
const BOB_ROWS = 23 + DECISION_ROWS;

let t: TestAuth;
let audit: AuditBeside;
let dataDir: string;
let alice: Browser;
let bob: Browser;
const ids = { alice: '', bob: '', aliceAgent: '', bobAgent: '' };

/** A dashboard token made on the owner's page; returns its agent id. */
async function makeAgent(browser: Browser, name: string): Promise<string> {
  const form = await browser.open('/dashboard/tokens');
  const created = await browser.submit(form, { name, 'scope-read': 'on' }, '/dashboard/tokens');
  expect(created.status).toBe(201);
  const id = /<tr id="([^"]+)">/.exec(created.html)?.[1];
  if (id === undefined) throw new Error('no agent row');
  return id;
}

beforeAll(async () => {
  t = await startTestAuth();
  audit = await startAuditBeside({ superuserUrl: t.postgres.url, bus: t.bus });
  dataDir = await mkdtemp(join(tmpdir(), 'pag-audit-read-'));

  alice = new Browser(t.url);
  bob = new Browser(t.url);
  await signUp(alice, ALICE);
  await signUp(bob, BOB);
  for (const [who, owner] of [
    ['alice', ALICE],
    ['bob', BOB],
  ] as const)
    ids[who] = (await t.db.account.findUniqueOrThrow({ where: { email: owner.email } })).id;
  ids.aliceAgent = await makeAgent(alice, 'Alice <b>bot</b>');
  ids.bobAgent = await makeAgent(bob, 'Bob bot');
  // Both owners' decision rows are in the log before the test's own rows are appended.
  await eventually(
    async () => {
      const [row] = await t.db.$queryRaw<{ rows: number }[]>`
        SELECT count(*)::int AS rows FROM "audit"."records" WHERE source = 'auth'`;
      return row?.rows === 2 * DECISION_ROWS;
    },
    { what: 'the owners’ sign-ups and tokens in the audit log', timeoutMs: 20_000 },
  );

  // Alice's rows and Bob's interleaved in one chain, as the gateway writes them.
  const events: AuditEvent[] = [];
  const aliceRequest = (path: string, status = 200) =>
    requestEvent({ accountId: ids.alice, agentId: ids.aliceAgent, clientId: 'alice-client', path, status });
  for (let index = 0; index < ALICE_ROWS - 3; index += 1) {
    events.push(aliceRequest(`${ALICE_MARK}/${index}`));
    if (index % 10 === 0)
      events.push(requestEvent({ accountId: ids.bob, agentId: ids.bobAgent, path: `${BOB_MARK}/${index}` }));
  }
  events.push(aliceRequest(HOSTILE_PATH, 404));
  events.push(aliceRequest('/api/v1/memory', 403));
  events.push(
    actionEvent({
      accountId: ids.alice,
      agentId: null,
      actor: { type: 'owner', id: ids.alice },
      action: 'handshake.approve',
      target: 'hs_123',
      status: null,
      latencyMs: null,
    }),
  );
  for (let start = 0; start < events.length; start += 100)
    await audit.writer.log.append(events.slice(start, start + 100));
}, 90_000);

afterAll(async () => {
  await audit?.close();
  await t?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

const rowsOf = (page: Page) =>
  [...page.html.matchAll(/<tr id="seq-(\d+)">/g)].map((match) => Number(match[1]));

async function exportOf(
  browser: Browser,
  search = '',
): Promise<{ response: Response; records: AuditRecord[] }> {
  const response = await browser.get(`/dashboard/audit/export.ndjson${search}`);
  const text = await response.text();
  const lines = text.split('\n');
  expect(lines.at(-1)).toBe('');
  return { response, records: lines.slice(0, -1).map((line) => AuditRecord.parse(JSON.parse(line))) };
}

/** `pag …` on the test's database, as an operator would run it with DATABASE_URL set. */
async function pag(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    {
      DATABASE_URL: t.postgres.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      // The deployment's own key, as with any DATABASE_URL: the auth core reads its signing keys.
      KEY_ENCRYPTION_KEY: t.config.keyEncryptionKey.toString('base64'),
    },
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  return { code, out, err };
}

describe('/dashboard/audit', () => {
  test('needs a signed-in owner: the page and the export go to the sign-in first', async () => {
    const stranger = new Browser(t.url);
    for (const path of ['/dashboard/audit', '/dashboard/audit/export.ndjson']) {
      const response = await stranger.get(path);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  test("shows the owner's newest rows with agent names, every value escaped", async () => {
    const page = await alice.open('/dashboard/audit');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain('aria-current="page">Audit log');
    const rows = rowsOf(page);
    expect(rows).toHaveLength(50);
    expect([...rows].sort((x, y) => y - x)).toEqual(rows);
    // Newest first: the owner's action, then the two requests before it.
    expect(page.html).toMatch(
      /handshake\.approve<\/code> hs_123[\s\S]*&lt;script&gt;alert\(1\)&lt;\/script&gt;/,
    );
    expect(page.html).not.toContain('<script>');
    expect(page.html).toContain('Alice &lt;b&gt;bot&lt;/b&gt;');
    expect(page.html).not.toContain('<b>bot</b>');
    expect(page.html).toMatch(/<td>owner<\/td>/);
    expect(page.html).not.toContain(BOB_MARK);
  });

  test('pages by seq through every row once, with the filter kept', async () => {
    const seen: number[] = [];
    let page = await alice.open('/dashboard/audit?status=2xx');
    for (;;) {
      seen.push(...rowsOf(page));
      const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(page.html)?.[1];
      if (older === undefined) break;
      expect(older).toContain('status=2xx');
      page = await alice.open(older.replaceAll('&amp;', '&'));
      expect(page.html).toContain('>Newest</a>');
    }
    expect(seen).toHaveLength(ALICE_ROWS - 3);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test('filters by agent, status, path prefix and time', async () => {
    const denied = await alice.open('/dashboard/audit?status=4xx');
    expect(rowsOf(denied)).toHaveLength(2);
    const byPath = await alice.open(`/dashboard/audit?path=${encodeURIComponent('/api/v1/memory')}`);
    expect(rowsOf(byPath)).toHaveLength(1);
    expect(byPath.html).toContain('403');
    const future = await alice.open('/dashboard/audit?from=2100-01-01');
    expect(rowsOf(future)).toEqual([]);
    expect(future.html).toContain('Nothing matches this filter yet.');
    const byAgent = await alice.open(`/dashboard/audit?agent=${ids.aliceAgent}&status=404`);
    expect(rowsOf(byAgent)).toHaveLength(1);
    expect(byAgent.html).toContain(`<option value="${ids.aliceAgent}" selected>`);
  });

  test('a filter that means nothing is a 400 page saying why, with the form', async () => {
    const page = await alice.open('/dashboard/audit?status=teapot&path=%3Cb%3E');
    expect(page.status).toBe(400);
    expect(page.html).toContain('role="alert">Status must be an HTTP status');
    expect(page.html).toContain('value="teapot"');
    expect(page.html).not.toContain('<b>');
    expect(rowsOf(page)).toEqual([]);
    const exported = await alice.get('/dashboard/audit/export.ndjson?from=soon');
    expect(exported.status).toBe(400);
    expect(await exported.text()).toContain('From must be a date');
  });
});

describe('tenancy: owner B never sees a row of owner A', () => {
  test('on the page, even naming A’s agent', async () => {
    const page = await bob.open('/dashboard/audit');
    expect(rowsOf(page)).toHaveLength(BOB_ROWS);
    expect(page.html).toContain(BOB_MARK);
    expect(page.html).not.toContain(ALICE_MARK);
    expect(page.html).not.toContain(ids.aliceAgent);
    const naming = await bob.open(`/dashboard/audit?agent=${ids.aliceAgent}`);
    expect(naming.status).toBe(200);
    expect(rowsOf(naming)).toEqual([]);
  });

  test('in the export', async () => {
    const { records } = await exportOf(bob);
    expect(records).toHaveLength(BOB_ROWS);
    expect(records.every((record) => record.accountId === ids.bob)).toBe(true);
    expect((await exportOf(bob, `?agent=${ids.aliceAgent}`)).records).toEqual([]);
  });

  test('in pag audit list --owner B', async () => {
    const text = await pag('audit', 'list', '--owner', BOB.email, '--limit', '1000');
    expect(text).toMatchObject({ code: 0, err: [] });
    expect(text.out).toHaveLength(BOB_ROWS);
    expect(text.out.join('\n')).not.toContain(ALICE_MARK);
    const json = await pag('audit', 'list', '--owner', BOB.email, '--limit', '1000', '--json');
    const records = json.out.map((line) => AuditRecord.parse(JSON.parse(line)));
    expect(records).toHaveLength(BOB_ROWS);
    expect(records.every((record) => record.accountId === ids.bob)).toBe(true);
    const naming = await pag('audit', 'list', '--owner', BOB.email, '--agent', ids.aliceAgent);
    expect(naming).toEqual({ code: 0, out: [`no audit rows for ${BOB.email}`], err: [] });
  });
});

describe('the export', () => {
  test('streams every matching row as NDJSON AuditRecords, newest first, as an attachment', async () => {
    const { response, records } = await exportOf(alice);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-\d{4}-\d\d-\d\d\.ndjson"$/,
    );
    expect(records).toHaveLength(ALICE_ROWS + DECISION_ROWS);
    expect(records.every((record) => record.accountId === ids.alice)).toBe(true);
    const seqs = records.map((record) => record.seq);
    expect([...seqs].sort((x, y) => y - x)).toEqual(seqs);
    expect(records[0]).toMatchObject({ kind: 'action', action: 'handshake.approve', actorType: 'owner' });
  });

  test('with the page’s filter', async () => {
    const { records } = await exportOf(alice, '?status=4xx');
    expect(records.map((record) => record.status)).toEqual([403, 404]);
  });
});

describe('pag audit list', () => {
  test('prints one line per row, newest first, up to --limit; --json one record per line', async () => {
    const text = await pag('audit', 'list', '--owner', ALICE.email, '--limit', '3');
    expect(text.code).toBe(0);
    expect(text.out).toHaveLength(3);
    expect(text.out[0]).toMatch(/^#\d+ {2}\S+ {2}owner {2}handshake\.approve hs_123 {2}- {2}allowed {2}-$/);
    expect(text.out[2]).toContain(`GET ${HOSTILE_PATH}  404  allowed  1.25 ms`);
    const all = await pag(
      'audit',
      'list',
      '--owner',
      ALICE.email,
      '--limit',
      '1000',
      '--json',
      '--status',
      '2xx',
    );
    expect(all.out).toHaveLength(ALICE_ROWS - 3);
    const filtered = await pag(
      'audit',
      'list',
      '--owner',
      ALICE.email,
      '--agent',
      ids.aliceAgent,
      '--since',
      new Date(Date.now() - 3600_000).toISOString(),
      '--until',
      '2100-01-01',
      '--status',
      '404',
    );
    expect(filtered.out).toHaveLength(1);
  });

  test('mistakes are one line and exit code 2', async () => {
    for (const argv of [
      ['--status', 'teapot'],
      ['--since', 'yesterday'],
      ['--until', '2026-02-30'],
      ['--limit', '0'],
    ]) {
      const result = await pag('audit', 'list', '--owner', ALICE.email, ...argv);
      expect(result.code).toBe(2);
      expect(result.err).toHaveLength(1);
    }
    expect((await pag('audit', 'list', '--owner', `${randomUUID()}@nobody.test`)).err).toEqual([
      expect.stringContaining('no owner with the email'),
    ]);
  });
});

describe('without the audit service', () => {
  beforeAll(async () => {
    await audit.stopService();
  });

  test('the page says the log is unavailable (503) and keeps the form; the export is the 503 page', async () => {
    const page = await alice.open('/dashboard/audit?status=2xx');
    expect(page.status).toBe(503);
    expect(page.html).toContain('The audit log is unavailable right now');
    expect(page.html).toContain('value="2xx"');
    expect(page.html).not.toMatch(/at \S+\.ts:\d+/);
    const exported = await alice.get('/dashboard/audit/export.ndjson');
    expect(exported.status).toBe(503);
    expect(exported.headers.get('content-type')).toContain('text/html');
    expect(await exported.text()).toContain('The audit log is unavailable right now');
  });
});
