/**
 * Every token the auth service issues is in our shape (pag_<kind>_…, docs/adr/0025), a forged
 * one is refused without a database read, and a token issued before the shape existed (legacy)
 * keeps working until the cut-over the token_format migration recorded.
 */

import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TOKEN_LEGACY_HEADER, TOKEN_PATTERN } from '@pag/contracts';
import { applyMigrations, createPrismaClient } from '@pag/kit';
import { startTestPostgres } from '@pag/kit/testing';
import { authDatabase } from '../src/database.ts';
import { byOperator } from '../src/events/audit-decisions.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { LegacyCutOver } from '../src/store/legacy-cut-over.ts';
import { recordKey } from '../src/store/record-key.ts';
import { createOwner, introspect, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let accountId: string;
beforeAll(async () => {
  t = await startTestAuth();
  accountId = await createOwner(t.db);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const scanner = new RegExp(`^${TOKEN_PATTERN}$`);
/** The token with one character of its tag changed. */
const flipTag = (token: string) => `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;

async function agentToken(kind: 'dashboard' | 'handshake' | 'device'): Promise<string> {
  const agent = await t.auth.core.agents.createAgent({
    accountId,
    kind,
    name: `A ${kind}`,
    scopes: ['read'],
  });
  return (await t.auth.core.agents.issueToken(agent)).value;
}

async function answer(token: string) {
  const response = await introspect(t.url, token, RESOURCE_SERVER);
  return {
    status: response.status,
    legacy: response.headers.get(TOKEN_LEGACY_HEADER),
    body: await response.json(),
  };
}

describe('token format', () => {
  test('every kind of token carries its prefix, matches the scanner pattern and is active', async () => {
    const { tokens } = await obtainTokens(t.url);
    const issued = {
      pag_at_: tokens.access_token,
      pag_rt_: tokens.refresh_token ?? '',
      pag_dt_: await agentToken('dashboard'),
      pag_ht_: await agentToken('handshake'),
      pag_dv_: await agentToken('device'),
    };
    for (const [prefix, token] of Object.entries(issued)) {
      expect(token.startsWith(prefix)).toBe(true);
      expect(token).toMatch(scanner);
    }
    expect((await answer(issued.pag_dt_)).body).toMatchObject({ active: true, token_kind: 'dashboard' });
    expect((await answer(issued.pag_at_)).body).toMatchObject({ active: true, token_type: 'Bearer' });
  });

  test('a fresh database accepts no legacy token, and says so with every introspection answer', async () => {
    const legacy = randomBytes(32).toString('base64url');
    expect(await answer(legacy)).toEqual({ status: 200, legacy: 'none', body: { active: false } });
  });
});

describe('legacy tokens', () => {
  test('the migration marks every row written before it legacy; the cut-over is the last legacy token', async () => {
    await using postgres = await startTestPostgres();
    const before = await mkdtemp(join(tmpdir(), 'pag-migrations-'));
    try {
      await cp(authDatabase.migrationsDir, before, {
        recursive: true,
        filter: (source) => !source.includes('token_format'),
      });
      await applyMigrations({
        databaseUrl: postgres.url,
        schema: authDatabase.schema,
        migrationsDir: before,
      });
      const db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: authDatabase.schema });
      try {
        const last = new Date(Date.now() + 86_400_000);
        // As the previous version wrote them: it knows nothing of the legacy column.
        for (const [id, model, expiresAt] of [
          ['a', 'AccessToken', new Date(Date.now() + 3_600_000)],
          ['b', 'RefreshToken', last],
          ['c', 'Session', new Date(Date.now() + 10 * 86_400_000)],
        ] as const)
          await db.$executeRaw`
            INSERT INTO "auth"."oidc_payloads" (model, id, payload, expires_at)
            VALUES (${model}, ${id}, '{}'::jsonb, ${expiresAt})`;
        await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
        expect((await db.oidcPayload.findMany()).map((row) => row.legacy)).toEqual([true, true, true]);
        const cutOver = await LegacyCutOver.load(db, undefined);
        expect(cutOver.until).toEqual(last);
        // The last one goes (rotated, revoked or expired): the cut-over moves to the one before.
        await db.oidcPayload.delete({ where: { model_id: { model: 'RefreshToken', id: 'b' } } });
        await cutOver.refresh();
        expect(cutOver.until?.getTime()).toBeLessThan(last.getTime());
        await db.oidcPayload.delete({ where: { model_id: { model: 'AccessToken', id: 'a' } } });
        await cutOver.refresh();
        expect(cutOver.until).toBeNull();
      } finally {
        await db.$disconnect();
      }
    } finally {
      await rm(before, { recursive: true, force: true });
    }
  }, 60_000);

  test('a token issued before the prefix works until it expires or is revoked; another legacy-shaped one does not', async () => {
    // A token as the service issued it before: the same record, keyed by a value without prefix
    // and marked legacy, as a replica of the previous version writes it.
    const expiresAt = new Date(Date.now() + 2 * 3_600_000);
    const agent = await t.auth.core.agents.createAgent({
      accountId,
      kind: 'handshake',
      name: 'Before the prefix',
      scopes: ['read'],
      expiresAt,
    });
    const tagged = (await t.auth.core.agents.issueToken(agent)).value;
    const legacy = randomBytes(32).toString('base64url');
    const key = recordKey(t.config.tokenHashKey);
    await t.db.oidcPayload.update({
      where: { model_id: { model: 'AccessToken', id: key(tagged) } },
      data: { id: key(legacy), legacy: true },
    });
    await t.restart();
    const kept = await answer(legacy);
    expect(kept.body).toMatchObject({ active: true, token_kind: 'handshake' });
    // Only this token is legacy: the ten-year tokens of ours issued above do not hold the path open.
    expect(Math.abs(Date.parse(kept.legacy ?? '') - expiresAt.getTime())).toBeLessThan(5_000);
    expect((await answer(randomBytes(32).toString('base64url'))).body).toEqual({ active: false });

    // The operator ends the legacy path early: the same token is refused.
    await t.restart({ legacyTokensUntil: null });
    expect(await answer(legacy)).toMatchObject({ legacy: 'none', body: { active: false } });

    // Left to itself, the path closes once the last legacy token is gone.
    await t.restart({ legacyTokensUntil: undefined });
    expect((await answer(legacy)).body).toMatchObject({ active: true });
    await t.auth.core.agents.revoke(accountId, agent.id, byOperator());
    await t.auth.core.legacyTokens.refresh();
    expect((await answer(randomBytes(32).toString('base64url'))).legacy).toBe('none');
  }, 60_000);
});

describe('forged tokens', () => {
  // Last: stops the database.
  test('a token with a flipped tag character is inactive without a database read', async () => {
    const token = await agentToken('dashboard');
    const fresh = await agentToken('handshake');
    await t.postgres.stop();
    expect(await answer(flipTag(token))).toMatchObject({ status: 200, body: { active: false } });
    expect(await answer(flipTag(fresh))).toMatchObject({ status: 200, body: { active: false } });
    // The database is really gone: a token that may exist cannot be answered.
    expect((await answer(fresh)).status).toBeGreaterThanOrEqual(500);
  }, 60_000);
});
