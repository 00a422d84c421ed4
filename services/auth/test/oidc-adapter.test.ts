/**
 * The oidc-provider adapter against a real PostgreSQL: concurrent redemption, expiry and purge,
 * grant revocation, lookups by secondary key, and what rests in the table.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  applyMigrations,
  createLogger,
  createPrismaClient,
  startPurgeJob,
  TokenTags,
  tokenSha256,
} from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { freePort, startTestPostgres } from '@pag/kit/testing';
import type { AdapterFactory, AdapterPayload } from 'oidc-provider';
import { authDatabase } from '../src/database.ts';
import type { RevokedAccess } from '../src/events/auth-events.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { createOidcAdapterFactory } from '../src/store/oidc-adapter.ts';
import { purgeExpiredPayloads } from '../src/store/purge-job.ts';

let postgres: TestPostgres;
let db: PrismaClient;
let adapters: AdapterFactory;
const revoked: RevokedAccess[] = [];
const now = () => Math.floor(Date.now() / 1000);
/** Tokens in the shape issued before the pag_ prefix (legacy): this adapter still looks them up. */
const token = () => randomBytes(32).toString('base64url');
const tags = new TokenTags(['a-test-key-for-token-tags-0123456789abcdef']);

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: 'auth', maxConnections: 20 });
  adapters = createOidcAdapterFactory({
    prisma: db,
    tokenHashKey: 'a-test-key-for-record-ids-0123456789abcdef',
    onAccessTokensRevoked: async (items) => {
      revoked.push(...items);
    },
    tokenTags: tags,
    legacy: { open: () => true },
  });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await postgres?.stop();
});

function tokenPayload(kind: string, jti: string, grantId: string, extra: Partial<AdapterPayload> = {}) {
  return {
    iat: now(),
    exp: now() + 600,
    jti,
    kind,
    clientId: 'client-1',
    accountId: 'account-1',
    grantId,
    ...extra,
  };
}

describe('oidc adapter: tokens read before any lookup', () => {
  /** The flipped character is in the tag; the token keeps its length and alphabet. */
  const flipTag = (value: string) =>
    `${value.slice(0, -2)}${value.at(-2) === 'A' ? 'B' : 'A'}${value.at(-1)}`;

  test('a token of ours is found; with a flipped tag character, or as the other kind, it is not', async () => {
    const access = tags.mint('dashboard');
    const refresh = tags.mint('refresh');
    await adapters('AccessToken').upsert(access, tokenPayload('AccessToken', access, 'g-tags'), 600);
    await adapters('RefreshToken').upsert(refresh, tokenPayload('RefreshToken', refresh, 'g-tags'), 600);
    expect(await adapters('AccessToken').find(access)).toMatchObject({ jti: access });
    expect(await adapters('RefreshToken').find(refresh)).toMatchObject({ jti: refresh });
    expect(await adapters('AccessToken').find(flipTag(access))).toBeUndefined();
    expect(await adapters('RefreshToken').find(flipTag(refresh))).toBeUndefined();
    expect(await adapters('RefreshToken').find(access)).toBeUndefined();
    expect(await adapters('AccessToken').find(refresh)).toBeUndefined();
    // Only tokens without the prefix are marked legacy (the legacy cut-over follows those).
    const legacy = token();
    await adapters('AccessToken').upsert(legacy, tokenPayload('AccessToken', legacy, 'g-tags'), 600);
    const rows = await db.oidcPayload.findMany({ where: { grantId: 'g-tags' }, orderBy: { model: 'asc' } });
    expect(rows.map((row) => row.legacy).sort()).toEqual([false, false, true]);
  });

  test('a forged token, or a legacy one past the cut-over, costs no database read', async () => {
    // A database that answers nothing: any query would fail.
    const nowhere = createPrismaClient(PrismaClient, {
      databaseUrl: `postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`,
      schema: 'auth',
    });
    try {
      const offline = createOidcAdapterFactory({
        prisma: nowhere,
        tokenHashKey: 'a-test-key-for-record-ids-0123456789abcdef',
        tokenTags: tags,
        legacy: { open: () => false },
      });
      const forged = flipTag(tags.mint('oauth'));
      expect(await offline('AccessToken').find(forged)).toBeUndefined();
      expect(await offline('RefreshToken').find(flipTag(tags.mint('refresh')))).toBeUndefined();
      expect(await offline('AccessToken').find(token())).toBeUndefined();
      expect(await offline('RefreshToken').find(token())).toBeUndefined();
      // The same adapter does read the database for a token that may exist.
      await expect(offline('AccessToken').find(tags.mint('oauth'))).rejects.toThrow();
    } finally {
      await nowhere.$disconnect();
    }
  });
});

describe('oidc adapter', () => {
  test('what was stored is found again, with its id, and only under its own model', async () => {
    const code = token();
    await adapters('AuthorizationCode').upsert(code, tokenPayload('AuthorizationCode', code, 'g-find'), 600);
    expect(await adapters('AuthorizationCode').find(code)).toMatchObject({ jti: code, grantId: 'g-find' });
    expect(await adapters('AccessToken').find(code)).toBeUndefined();
    expect(await adapters('AuthorizationCode').find(token())).toBeUndefined();
  });

  test('no usable token value rests in the table', async () => {
    const access = token();
    const refresh = token();
    await adapters('AccessToken').upsert(access, tokenPayload('AccessToken', access, 'g-raw'), 600);
    await adapters('RefreshToken').upsert(refresh, tokenPayload('RefreshToken', refresh, 'g-raw'), 600);
    const session = token();
    await adapters('Interaction').upsert(
      'interaction-uid',
      {
        jti: 'interaction-uid',
        kind: 'Interaction',
        session: { accountId: 'account-1', uid: 'u', cookie: session },
      },
      600,
    );
    const [dump] = await db.$queryRaw<
      { text: string }[]
    >`SELECT json_agg(p)::text AS text FROM "auth"."oidc_payloads" p`;
    for (const secret of [access, refresh, session]) expect(dump?.text).not.toContain(secret);
    expect(await adapters('AccessToken').find(access)).toMatchObject({ jti: access });
    expect(await adapters('Interaction').find('interaction-uid')).toEqual({
      jti: 'interaction-uid',
      kind: 'Interaction',
      session: { accountId: 'account-1', uid: 'u' },
    });
  });

  test('of concurrent redemptions of one code exactly one wins; the reuse revokes the grant', async () => {
    const code = token();
    const access = token();
    await adapters('Grant').upsert(
      'g-race',
      { jti: 'g-race', kind: 'Grant', accountId: 'account-1', clientId: 'client-1' },
      600,
    );
    await adapters('AuthorizationCode').upsert(code, tokenPayload('AuthorizationCode', code, 'g-race'), 600);
    await adapters('AccessToken').upsert(access, tokenPayload('AccessToken', access, 'g-race'), 600);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => adapters('AuthorizationCode').consume(code)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(failures).toHaveLength(7);
    for (const failure of failures) expect(failure.reason).toMatchObject({ error: 'invalid_grant' });
    expect(await adapters('Grant').find('g-race')).toBeUndefined();
    expect(await adapters('AccessToken').find(access)).toBeUndefined();
    expect(revoked).toContainEqual({ accountId: 'account-1', clientId: 'client-1', tokenSha256: null });
  });

  test('a consumed record reads as consumed', async () => {
    const refresh = token();
    await adapters('RefreshToken').upsert(refresh, tokenPayload('RefreshToken', refresh, 'g-consumed'), 600);
    await adapters('RefreshToken').consume(refresh);
    expect((await adapters('RefreshToken').find(refresh))?.consumed).toEqual(expect.any(Number));
  });

  test('revokeByGrantId removes the grant’s records of that model and reports access tokens', async () => {
    const [a, b, other, refresh] = [token(), token(), token(), token()];
    await adapters('AccessToken').upsert(a, tokenPayload('AccessToken', a, 'g-revoke'), 600);
    await adapters('AccessToken').upsert(
      b,
      tokenPayload('AccessToken', b, 'g-revoke', { clientId: 'client-2' }),
      600,
    );
    await adapters('AccessToken').upsert(other, tokenPayload('AccessToken', other, 'g-keep'), 600);
    await adapters('RefreshToken').upsert(refresh, tokenPayload('RefreshToken', refresh, 'g-revoke'), 600);
    revoked.length = 0;
    await adapters('AccessToken').revokeByGrantId('g-revoke');
    expect(await adapters('AccessToken').find(a)).toBeUndefined();
    expect(await adapters('AccessToken').find(b)).toBeUndefined();
    expect(await adapters('AccessToken').find(other)).toBeDefined();
    expect(await adapters('RefreshToken').find(refresh)).toBeDefined();
    expect(revoked).toEqual(
      expect.arrayContaining([
        { accountId: 'account-1', clientId: 'client-1', tokenSha256: null },
        { accountId: 'account-1', clientId: 'client-2', tokenSha256: null },
      ]),
    );
  });

  test('destroying an access token reports its SHA-256', async () => {
    const access = token();
    await adapters('AccessToken').upsert(access, tokenPayload('AccessToken', access, 'g-destroy'), 600);
    revoked.length = 0;
    await adapters('AccessToken').destroy(access);
    expect(revoked).toEqual([
      { accountId: 'account-1', clientId: 'client-1', tokenSha256: tokenSha256(access) },
    ]);
    expect(await adapters('AccessToken').find(access)).toBeUndefined();
  });

  test('sessions are found by uid, device codes by user code, each within its model', async () => {
    await adapters('Session').upsert(
      'session-id',
      { jti: 'session-id', kind: 'Session', uid: 'uid-1', accountId: 'a' },
      600,
    );
    expect(await adapters('Session').findByUid('uid-1')).toMatchObject({ uid: 'uid-1', accountId: 'a' });
    expect(await adapters('Interaction').findByUid('uid-1')).toBeUndefined();
    await adapters('DeviceCode').upsert(
      'device-code',
      { jti: 'device-code', kind: 'DeviceCode', userCode: 'WDJB-MJHT' },
      600,
    );
    expect(await adapters('DeviceCode').findByUserCode('WDJB-MJHT')).toMatchObject({ userCode: 'WDJB-MJHT' });
    expect(await adapters('Session').findByUserCode('WDJB-MJHT')).toBeUndefined();
  });

  test('an expired record is never returned; the purge deletes it (an access token 7 days after its expiry)', async () => {
    const expired = token();
    await adapters('AccessToken').upsert(expired, tokenPayload('AccessToken', expired, 'g-expired'), 600);
    const code = token();
    await adapters('AuthorizationCode').upsert(
      code,
      tokenPayload('AuthorizationCode', code, 'g-expired'),
      600,
    );
    await db.$executeRaw`UPDATE "auth"."oidc_payloads" SET expires_at = now() - interval '1 second' WHERE grant_id = 'g-expired'`;
    expect(await adapters('AccessToken').find(expired)).toBeUndefined();
    await expect(adapters('AccessToken').consume(expired)).rejects.toMatchObject({
      error: 'invalid_request',
    });
    const job = startPurgeJob({
      intervalMs: 3_600_000,
      tasks: [purgeExpiredPayloads(db)],
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    await job.runOnce();
    // The code is gone; the access token's row stays, so introspection can still say "expired".
    expect(
      await db.oidcPayload.findMany({ where: { grantId: 'g-expired' }, select: { model: true } }),
    ).toEqual([{ model: 'AccessToken' }]);
    await db.$executeRaw`UPDATE "auth"."oidc_payloads" SET expires_at = now() - interval '7 days 1 second' WHERE grant_id = 'g-expired'`;
    await job.runOnce();
    await job.stop();
    expect(await db.oidcPayload.count({ where: { grantId: 'g-expired' } })).toBe(0);
  });

  test('deleting an access token leaves a tombstone, which no model reads and the purge ends', async () => {
    const revoked = token();
    await adapters('AccessToken').upsert(revoked, tokenPayload('AccessToken', revoked, 'g-tomb'), 600);
    const before = await db.oidcPayload.count({ where: { model: 'RevokedAccessToken' } });
    await adapters('AccessToken').destroy(revoked);
    expect(await adapters('AccessToken').find(revoked)).toBeUndefined();
    const tombstones = await db.oidcPayload.findMany({ where: { model: 'RevokedAccessToken' } });
    expect(tombstones).toHaveLength(before + 1);
    // No payload, no grant, no owner: only that a token of that keyed id was revoked.
    for (const tombstone of tombstones)
      expect(tombstone).toMatchObject({ payload: {}, grantId: null, accountId: null, clientId: null });
    await db.$executeRaw`UPDATE "auth"."oidc_payloads" SET expires_at = now() - interval '7 days 1 second' WHERE model = 'RevokedAccessToken'`;
    await purgeExpiredPayloads(db).run();
    expect(await db.oidcPayload.count({ where: { model: 'RevokedAccessToken' } })).toBe(0);
  });

  test('a record without expiry (a registered client) stays', async () => {
    await adapters('Client').upsert('client-x', {
      client_id: 'client-x',
      redirect_uris: ['https://a.example/cb'],
    });
    expect(await adapters('Client').find('client-x')).toEqual({
      client_id: 'client-x',
      redirect_uris: ['https://a.example/cb'],
    });
  });
});

describe('text PostgreSQL cannot store', () => {
  const storedRows = () =>
    db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM "auth"."oidc_payloads"`;

  test.each([
    ['a NUL', 'a\u0000b', 'contains a NUL character (U+0000)'],
    ['an unpaired surrogate', 'a\ud800b', 'contains an unpaired UTF-16 surrogate (not valid Unicode)'],
  ])(
    '%s in a client is invalid_client_metadata, in any other record invalid_request; nothing is written',
    async (_what, text, reason) => {
      const before = await storedRows();
      const client = adapters('Client').upsert('client-bad', { client_id: 'client-bad', client_name: text });
      await expect(client).rejects.toMatchObject({
        statusCode: 400,
        error: 'invalid_client_metadata',
        error_description: `client_name ${reason}`,
      });
      const uid = token();
      const interaction = adapters('Interaction').upsert(uid, {
        iat: now(),
        exp: now() + 600,
        jti: uid,
        kind: 'Interaction',
        params: { client_id: 'client-1', state: text },
      });
      await expect(interaction).rejects.toMatchObject({
        statusCode: 400,
        error: 'invalid_request',
        error_description: `state ${reason}`,
      });
      expect(await storedRows()).toEqual(before);
    },
  );

  test('every other store query refuses it before PostgreSQL sees it: 400 INVALID_TEXT, not a database error', async () => {
    for (const email of ['a\u0000@x.test', 'a\ud800@x.test']) {
      await expect(db.account.findUnique({ where: { email } })).rejects.toMatchObject({
        name: 'AppError',
        code: 'INVALID_TEXT',
        status: 400,
      });
      await expect(db.$queryRaw`SELECT ${email}::text`).rejects.toMatchObject({ code: 'INVALID_TEXT' });
      await expect(
        db.$transaction(async (tx) => tx.account.findUnique({ where: { email } })),
      ).rejects.toMatchObject({ code: 'INVALID_TEXT' });
    }
    // Text that is fine passes.
    expect(await db.$queryRaw`SELECT ${'ünïcödé ✓'}::text AS t`).toEqual([{ t: 'ünïcödé ✓' }]);
  });
});
