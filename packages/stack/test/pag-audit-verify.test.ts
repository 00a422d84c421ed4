/**
 * `pag audit verify` against the stack's database (DATABASE_URL here; the embedded one is found
 * the same way as for every `pag` command): `ok <rows> rows` as the last line and exit code 0 on a
 * clean log; `broken at seq N: <kind>: <why>` and exit code 1 on a changed one. The key is the
 * embedded stack's (from DATA_DIR/secrets.json) unless AUDIT_SIGNING_KEY is set.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { OpenAuditLog } from '@pag/audit';
import { auditDatabase, openAuditLog, signCheckpoint, signingKeyFromSeed } from '@pag/audit';
import type { Env } from '@pag/kit';
import { applyMigrations } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import pg from 'pg';
import { runCli } from '../src/cli/run-cli.ts';
import { embeddedAuditSigningKey, loadStackSecrets } from '../src/secrets.ts';

let postgres: TestPostgres;
let dataDir: string;
let log: OpenAuditLog;
let client: pg.Client;
beforeAll(async () => {
  postgres = await startTestPostgres();
  dataDir = await mkdtemp(join(tmpdir(), 'pag-audit-verify-'));
  await applyMigrations({ databaseUrl: postgres.url, ...auditDatabase });
  log = openAuditLog({ databaseUrl: postgres.url });
  client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  // 12 rows, a checkpoint at 10 signed with the embedded stack's key.
  const requests = Array.from({ length: 12 }, (_, index) => ({
    kind: 'request' as const,
    eventId: randomUUID(),
    source: 'gateway' as const,
    requestId: `req-${index}`,
    time: new Date().toISOString(),
    accountId: randomUUID(),
    clientId: 'client-1',
    agentId: 'agt_1',
    decision: 'allowed' as const,
    reason: null,
    tokenKind: 'dashboard' as const,
    clientAddress: '127.0.0.1',
    method: 'GET',
    path: '/api/v1/memory',
    status: 200,
    latencyMs: 1.5,
    bytesIn: 0,
    bytesOut: 10,
  }));
  await log.log.append(requests);
  const key = signingKeyFromSeed(embeddedAuditSigningKey(await loadStackSecrets(dataDir)));
  const { rows } = await client.query<{ hash: string }>('SELECT hash FROM audit.records WHERE seq = 10');
  const signed = signCheckpoint(key, { seq: 10, hash: rows[0]?.hash as string }, new Date());
  await client.query(
    'INSERT INTO audit.checkpoints (seq, hash, signed_at, key_id, signature) VALUES ($1, $2, $3, $4, $5)',
    [signed.seq, signed.hash, signed.signedAt, signed.keyId, signed.signature],
  );
}, 120_000);
afterAll(async () => {
  await client?.end();
  await log?.close();
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function pag(argv: string[], env: Env = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { DATA_DIR: dataDir, DATABASE_URL: postgres.url, LOG_LEVEL: 'warn', ...env },
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  return { code, out, err };
}

const anotherKey = () => randomBytes(32).toString('base64url');

describe('pag audit verify', () => {
  test('a clean log: `ok <rows> rows` as the last line, exit code 0, with the embedded key', async () => {
    const result = await pag(['audit', 'verify']);
    expect(result).toMatchObject({ code: 0, err: [] });
    expect(result.out.at(-1)).toBe('ok 12 rows');
    expect(result.out).toContainEqual(
      expect.stringMatching(/^newest checkpoint: seq 10, hash [0-9a-f]{64}, signed /),
    );
  });

  test('AUDIT_SIGNING_KEY replaces the embedded key; AUDIT_VERIFY_KEYS trusts a retired one', async () => {
    const other = anotherKey();
    const untrusted = await pag(['audit', 'verify'], { AUDIT_SIGNING_KEY: other });
    expect(untrusted.code).toBe(1);
    expect(untrusted.out.at(-1)).toMatch(
      /^broken at seq 10: checkpoint mismatch: checkpoint at 10 is signed by key /,
    );
    const embedded = signingKeyFromSeed(embeddedAuditSigningKey(await loadStackSecrets(dataDir)));
    const retired = await pag(['audit', 'verify'], {
      AUDIT_SIGNING_KEY: other,
      AUDIT_VERIFY_KEYS: embedded.publicKey.raw,
    });
    expect(retired).toMatchObject({ code: 0, err: [] });
    expect(retired.out.at(-1)).toBe('ok 12 rows');
  });

  test('an edited row: `broken at seq N: edited: …` as the last line, exit code 1; --from past it is ok', async () => {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`UPDATE audit.records SET path = '/api/v1/other' WHERE seq = 4`);
    await client.query('COMMIT');
    const result = await pag(['audit', 'verify']);
    expect(result.code).toBe(1);
    expect(result.out.at(-1)).toMatch(/^broken at seq 4: edited: /);
    const from = await pag(['audit', 'verify', '--from', '5']);
    expect(from).toMatchObject({ code: 0, err: [] });
    expect(from.out.at(-1)).toBe('ok 8 rows');
    expect(from.out).toContain("checked from seq 5 on (--from): row 4's stored hash is taken on trust");
  });

  test.each([
    [['--from', '0'], /^pag: --from must be a sequence number/],
    [['--from', 'x'], /^pag: --from must be a sequence number/],
  ])('%j is refused with exit code 2', async (argv, message) => {
    const result = await pag(['audit', 'verify', ...argv]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(message);
  });

  test('a malformed AUDIT_VERIFY_KEYS is refused with exit code 2', async () => {
    const result = await pag(['audit', 'verify'], { AUDIT_VERIFY_KEYS: 'not-a-key' });
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(/^pag: AUDIT_SIGNING_KEY or AUDIT_VERIFY_KEYS: /);
  });
});
