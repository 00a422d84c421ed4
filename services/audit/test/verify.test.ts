/**
 * Verify on a real PostgreSQL, against an attacker with full database access (tamper as the
 * superuser, triggers off): each way of changing the log is named at its first broken seq, with
 * the right kind. Pages of 4 rows, so every walk crosses page boundaries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { chainHash } from '../src/chain/chain-hash.ts';
import { signingKeyFromSeed, verifyKeys } from '../src/checkpoints/signing-keys.ts';
import { withChainSnapshot } from '../src/store/chain-snapshot.ts';
import type { OpenAuditLog } from '../src/store/open-audit-log.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import { verifyAuditLog } from '../src/verify/verify-audit-log.ts';
import type { VerifyOptions } from '../src/verify/verify-chain.ts';
import { verifyChain } from '../src/verify/verify-chain.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { newSigningKey } from './support/audit-login.ts';
import { actionEvent, requestEvent } from './support/events.ts';
import { checkpoint, tamper, wipe } from './support/tamper.ts';

const SEED = newSigningKey();
const KEY = signingKeyFromSeed(SEED);
const RETIRED = signingKeyFromSeed(newSigningKey());
const STRANGER = signingKeyFromSeed(newSigningKey());
/** What the operator's config trusts: the signing key and one retired key. */
const KEYS = verifyKeys(SEED, [RETIRED.publicKey.raw]);
const ROWS = 25;
const CHECKPOINTS = [5, 10, 20];

let database: AuditDatabase;
let writer: OpenAuditLog;
beforeAll(async () => {
  database = await startAuditDatabase();
  writer = openAuditLog({ databaseUrl: database.serviceUrl });
}, 60_000);
afterAll(async () => {
  await writer?.close();
  await database?.close();
});

/** A fresh log: ROWS rows in batches, signed checkpoints at CHECKPOINTS (the one at 5 by the retired key). */
beforeEach(async () => {
  await wipe(database.owner);
  for (let seq = 1; seq <= ROWS; seq += 5)
    await writer.log.append(
      Array.from({ length: 5 }, (_, index) => (index % 2 ? actionEvent() : requestEvent())),
    );
  for (const seq of CHECKPOINTS) await checkpoint(database.owner, seq === 5 ? RETIRED : KEY, seq);
});

const verify = (options: Partial<VerifyOptions> = {}) =>
  verifyAuditLog({ databaseUrl: database.serviceUrl, keys: KEYS, pageSize: 4, ...options });

const sql = (statement: string) => tamper(database.owner, statement);

describe('an intact log', () => {
  test('ok with every row; checkpoints by the signing key and by a retired key verify', async () => {
    const result = await verify();
    expect(result).toMatchObject({ ok: true, rows: ROWS, lastSeq: ROWS, start: { from: 'genesis' } });
    const rows = await database.records();
    expect(result.ok && result.lastCheckpoint).toMatchObject({ seq: 20, hash: rows[19]?.hash });
  });

  test('an empty log is ok with 0 rows', async () => {
    await wipe(database.owner);
    expect(await verify()).toMatchObject({ ok: true, rows: 0, lastSeq: null });
  });

  test('progress after each page', async () => {
    const seen: number[] = [];
    await verify({ onProgress: ({ seq }) => seen.push(seq) });
    expect(seen).toEqual([4, 8, 12, 16, 20, 24]);
  });
});

describe('a log appended to while verify reads it', () => {
  test('is verified as it was when verify began: a checkpoint written meanwhile is not a cut tail', async () => {
    let appended = false;
    const result = await withChainSnapshot(database.owner, (source) =>
      verifyChain(
        {
          ...source,
          // Once verify has read every row, and before it reads the checkpoints: 3 rows and a checkpoint of them.
          checkpointsAfter: async (after, limit) => {
            if (!appended) {
              appended = true;
              await writer.log.append([requestEvent(), requestEvent(), requestEvent()]);
              await checkpoint(database.owner, KEY, ROWS + 3);
            }
            return source.checkpointsAfter(after, limit);
          },
        },
        { keys: KEYS, pageSize: 100 },
      ),
    );
    expect(appended).toBe(true);
    expect(result).toMatchObject({ ok: true, rows: ROWS });
    expect(await verify()).toMatchObject({ ok: true, rows: ROWS + 3 });
  });
});

describe('tampering as the superuser is named at the first broken seq', () => {
  test('an edited row: edited at its seq', async () => {
    await sql(`UPDATE audit.records SET status = 500 WHERE seq = 7`);
    expect(await verify()).toMatchObject({ ok: false, seq: 7, kind: 'edited', rows: 6 });
  });

  test('an edited hash (content kept): edited at its seq', async () => {
    await sql(`UPDATE audit.records SET hash = repeat('a', 64) WHERE seq = 13`);
    expect(await verify()).toMatchObject({ ok: false, seq: 13, kind: 'edited' });
  });

  test('a prev_hash that is not a hash: edited at its seq', async () => {
    await sql(`UPDATE audit.records SET prev_hash = 'not a hash' WHERE seq = 9`);
    expect(await verify()).toMatchObject({ ok: false, seq: 9, kind: 'edited' });
  });

  test('a row deleted in the middle: missing at its seq', async () => {
    await sql(`DELETE FROM audit.records WHERE seq = 7`);
    expect(await verify()).toMatchObject({ ok: false, seq: 7, kind: 'missing', rows: 6 });
  });

  test('rows deleted and the rest renumbered to close the gap: reordered at the first one moved', async () => {
    await sql(`DELETE FROM audit.records WHERE seq IN (7, 8)`);
    await sql(`UPDATE audit.records SET seq = -(seq - 2) WHERE seq > 8`);
    await sql(`UPDATE audit.records SET seq = -seq WHERE seq < 0`);
    expect(await verify()).toMatchObject({ ok: false, seq: 7, kind: 'reordered', rows: 6 });
  });

  test('two rows swapped (their seq exchanged): reordered at the first', async () => {
    await sql(`UPDATE audit.records SET seq = -7 WHERE seq = 7`);
    await sql(`UPDATE audit.records SET seq = 7 WHERE seq = 8`);
    await sql(`UPDATE audit.records SET seq = 8 WHERE seq = -7`);
    expect(await verify()).toMatchObject({ ok: false, seq: 7, kind: 'reordered', rows: 6 });
  });

  test('the tail truncated below a checkpoint: missing at the first row cut', async () => {
    await sql(`DELETE FROM audit.records WHERE seq >= 15`);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, seq: 15, kind: 'missing', rows: 14 });
    expect(!result.ok && result.why).toMatch(/checkpoint at 20/);
  });

  test('the tail cut after the newest checkpoint cannot be seen (the interval bounds it: ADR 39)', async () => {
    await sql(`DELETE FROM audit.records WHERE seq > 20`);
    expect(await verify()).toMatchObject({ ok: true, rows: 20 });
  });

  test('a forged checkpoint signature: checkpoint mismatch at its seq', async () => {
    const forged = Buffer.alloc(64, 7).toString('base64url');
    await sql(`UPDATE audit.checkpoints SET signature = '${forged}' WHERE seq = 10`);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, seq: 10, kind: 'checkpoint mismatch', rows: 9 });
    expect(!result.ok && result.why).toMatch(/signature/);
  });

  test('a checkpoint signed by a key verify does not trust: checkpoint mismatch', async () => {
    await checkpoint(database.owner, STRANGER, 15);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, seq: 15, kind: 'checkpoint mismatch' });
    expect(!result.ok && result.why).toMatch(/AUDIT_VERIFY_KEYS/);
  });

  test('an edit with the whole chain recomputed after it: checkpoint mismatch at the first checkpoint covering it', async () => {
    await sql(`UPDATE audit.records SET decision = 'denied', status = 403 WHERE seq = 7`);
    const rows = await database.records();
    let prev = rows[5]?.hash as string;
    const updates = rows.slice(6).map((row) => {
      const hash = chainHash(prev, row);
      const statement = `UPDATE audit.records SET prev_hash = '${prev}', hash = '${hash}' WHERE seq = ${row.seq}`;
      prev = hash;
      return statement;
    });
    await tamper(database.owner, ...updates);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, seq: 10, kind: 'checkpoint mismatch', rows: 9 });
    expect(!result.ok && result.why).toMatch(/a row after 5 was changed/);
  });

  test('a checkpoint past the last row with a forged signature is a mismatch, not a cut tail', async () => {
    await checkpoint(database.owner, KEY, 40, 'b'.repeat(64));
    await sql(
      `UPDATE audit.checkpoints SET signature = '${Buffer.alloc(64).toString('base64url')}' WHERE seq = 40`,
    );
    expect(await verify()).toMatchObject({ ok: false, seq: 40, kind: 'checkpoint mismatch', rows: ROWS });
  });

  test('a signed checkpoint past the last row (the tail cut, checkpoints kept): missing after the last row', async () => {
    await checkpoint(database.owner, KEY, 30, 'b'.repeat(64));
    expect(await verify()).toMatchObject({ ok: false, seq: 26, kind: 'missing', rows: ROWS });
  });
});

describe('--from N', () => {
  test('checks rows from N on, trusting row N - 1 as stored', async () => {
    await sql(`UPDATE audit.records SET status = 500 WHERE seq = 3`);
    expect(await verify({ from: 4 })).toMatchObject({
      ok: true,
      rows: ROWS - 3,
      start: { from: 'trusted row', seq: 3 },
    });
    expect(await verify({ from: 3 })).toMatchObject({ ok: false, seq: 3, kind: 'edited', rows: 0 });
    expect(await verify()).toMatchObject({ ok: false, seq: 3, kind: 'edited' });
  });

  test('still finds what breaks after N, and checks the checkpoints after N', async () => {
    await sql(`DELETE FROM audit.records WHERE seq = 12`);
    expect(await verify({ from: 9 })).toMatchObject({ ok: false, seq: 12, kind: 'missing', rows: 3 });
    await sql(`DELETE FROM audit.records WHERE seq >= 12`);
    expect(await verify({ from: 9 })).toMatchObject({ ok: false, seq: 12, kind: 'missing' });
  });

  test('N - 1 without a row: missing there; N past the last row: ok with 0 rows, unless a checkpoint signs rows from N', async () => {
    await sql(`DELETE FROM audit.records WHERE seq = 9`);
    expect(await verify({ from: 10 })).toMatchObject({ ok: false, seq: 9, kind: 'missing' });
    expect(await verify({ from: ROWS + 1 })).toMatchObject({ ok: true, rows: 0 });
    expect(await verify({ from: ROWS + 10 })).toMatchObject({ ok: true, rows: 0 });
    await sql(`DELETE FROM audit.records WHERE seq > 20`);
    expect(await verify({ from: 23 })).toMatchObject({ ok: true, rows: 0 });
    await checkpoint(database.owner, KEY, 24, 'e'.repeat(64));
    expect(await verify({ from: 23 })).toMatchObject({ ok: false, seq: 23, kind: 'missing' });
  });

  test('N at or below the first row is a whole verify', async () => {
    expect(await verify({ from: 1 })).toMatchObject({ ok: true, rows: ROWS, start: { from: 'genesis' } });
  });
});

describe('retention: the checkpoint at F - 1 anchors a log whose first row is F', () => {
  test('pruned by audit.prune_through: ok from the anchor, also with --from at or past it', async () => {
    await database.owner.$queryRawUnsafe('SELECT audit.prune_through(10)');
    expect((await database.records())[0]?.seq).toBe(11);
    expect(await verify()).toMatchObject({
      ok: true,
      rows: ROWS - 10,
      start: { from: 'checkpoint', seq: 10 },
    });
    expect(await verify({ from: 3 })).toMatchObject({ ok: true, rows: ROWS - 10 });
    expect(await verify({ from: 14 })).toMatchObject({ ok: true, rows: ROWS - 13 });
  });

  test('the first row edited after pruning: edited (its prev_hash is checked against the anchor)', async () => {
    await database.owner.$queryRawUnsafe('SELECT audit.prune_through(10)');
    await sql(`UPDATE audit.records SET prev_hash = repeat('c', 64) WHERE seq = 11`);
    expect(await verify()).toMatchObject({ ok: false, seq: 11, kind: 'edited' });
  });

  test('old rows deleted without an anchor: missing from the row after the last checkpoint below them', async () => {
    await sql(`DELETE FROM audit.records WHERE seq <= 8`);
    expect(await verify()).toMatchObject({ ok: false, seq: 6, kind: 'missing' });
    await sql(`DELETE FROM audit.checkpoints WHERE seq = 5`);
    expect(await verify()).toMatchObject({ ok: false, seq: 1, kind: 'missing' });
  });

  test('a forged anchor: checkpoint mismatch at the anchor', async () => {
    await database.owner.$queryRawUnsafe('SELECT audit.prune_through(10)');
    await sql(`UPDATE audit.checkpoints SET hash = repeat('d', 64) WHERE seq = 10`);
    expect(await verify()).toMatchObject({ ok: false, seq: 10, kind: 'checkpoint mismatch', rows: 0 });
  });
});
