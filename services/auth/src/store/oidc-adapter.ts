/**
 * oidc-provider's storage on PostgreSQL: one table, auth.oidc_payloads, for every model.
 *
 * What it enforces:
 * - an access or refresh token is read before any lookup (kit's TokenTags): one of ours whose tag
 *   does not verify or whose kind is not the model's, or a legacy one (no prefix) past the legacy
 *   cut-over, is not found, without a query or a look at what was read a moment ago;
 * - records are keyed by an HMAC of their id (record-key.ts) and payloads carry no raw id
 *   (payload-codec.ts): the table holds no usable token;
 * - a row past expires_at is never returned (purge-job.ts deletes it later);
 * - a token is read together with its grant, and registered clients are kept a minute
 *   (read-ahead.ts): introspection costs one query, and none when the same access token was read
 *   a moment ago (recent-tokens.ts);
 * - consume is one UPDATE … WHERE consumed_at IS NULL, so of two concurrent redemptions of a code
 *   or refresh token exactly one wins. oidc-provider reads `consumed` before it consumes; the loser
 *   of the race got past that read, so it is a reuse caught late and is treated as oidc-provider
 *   treats a reuse it sees (lib/helpers/grant_source.js, actions/grants/refresh_token.js): the
 *   grant is revoked and the request fails with invalid_grant;
 * - every deletion of access tokens is reported (onAccessTokensRevoked), so introspection caches
 *   evict them at once, whichever path revoked them (revocation endpoint, reuse, grant revocation),
 *   and leaves a tombstone, so introspection can say the token was revoked (inactive-tokens.ts).
 */
import type { TokenTags } from '@pag/kit';
import { tokenSha256 } from '@pag/kit';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { RevokedAccess } from '../events/auth-events.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { REVOKED_ACCESS_TOKEN } from './inactive-tokens.ts';
import { decodePayload, encodePayload } from './payload-codec.ts';
import { ReadAhead } from './read-ahead.ts';
import { RecentTokens } from './recent-tokens.ts';
import type { RecordKey } from './record-key.ts';
import { recordKey } from './record-key.ts';

export interface OidcAdapterOptions {
  prisma: PrismaClient;
  tokenHashKey: string;
  /** Awaited before the revoking request answers; failures are the callback's to handle. */
  onAccessTokensRevoked?: (revoked: RevokedAccess[]) => Promise<void>;
  /** Access tokens read a moment ago; the owner forgets revoked ones (default: none kept). */
  recentTokens?: RecentTokens;
  /** Verifies the tags of presented tokens (TOKEN_TAG_KEYS). */
  tokenTags: TokenTags;
  /** Whether tokens without our prefix are still looked up (legacy-cut-over.ts, docs/adr/0025). */
  legacy: { open(): boolean };
}

/** Models redeemed once; a second redemption fails as invalid_grant. */
const GRANT_SOURCES = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'PreAuthorizedCode']);
/** Models read together with their grant. */
const GRANT_BOUND = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);
/** Models whose ids are presented tokens, read (token-tags.ts) before they are looked up. */
const PRESENTED = new Set(['AccessToken', 'RefreshToken', 'ClientCredentials']);
/** Models presented as bearer tokens to resource servers. */
const ACCESS_TOKENS = new Set(['AccessToken', 'ClientCredentials']);

/**
 * The revoked access tokens among the rows a statement's `gone` deleted, kept as tombstones
 * (model REVOKED_ACCESS_TOKEN, the same keyed id, no payload) until their token would have expired
 * plus the purge's grace (purge-job.ts): introspection then tells a revoked token from an unknown
 * one (store/inactive-tokens.ts). Never read as a token: no model oidc-provider asks for has it.
 */
const tombstones = Prisma.sql`kept AS (
  INSERT INTO "auth"."oidc_payloads" (model, id, payload, expires_at, legacy)
  SELECT ${REVOKED_ACCESS_TOKEN}, id, '{}'::jsonb, expires_at, false FROM gone
   WHERE model IN ('AccessToken', 'ClientCredentials')
  ON CONFLICT (model, id) DO NOTHING
)`;

interface Owner {
  account_id: string | null;
  client_id: string | null;
}

export function createOidcAdapterFactory(options: OidcAdapterOptions): AdapterFactory {
  const shared = {
    ...options,
    key: recordKey(options.tokenHashKey),
    readAhead: new ReadAhead(),
    recentTokens: options.recentTokens ?? new RecentTokens(0),
  };
  return (model) => new PrismaOidcAdapter(model, shared);
}

class PrismaOidcAdapter implements Adapter {
  readonly #model: string;
  readonly #db: PrismaClient;
  readonly #key: RecordKey;
  readonly #onRevoked: OidcAdapterOptions['onAccessTokensRevoked'];
  readonly #readAhead: ReadAhead;
  readonly #recent: RecentTokens;
  readonly #tags: TokenTags;
  readonly #legacy: { open(): boolean };

  constructor(
    model: string,
    options: OidcAdapterOptions & { key: RecordKey; readAhead: ReadAhead; recentTokens: RecentTokens },
  ) {
    this.#model = model;
    this.#db = options.prisma;
    this.#key = options.key;
    this.#onRevoked = options.onAccessTokensRevoked;
    this.#readAhead = options.readAhead;
    this.#recent = options.recentTokens;
    this.#tags = options.tokenTags;
    this.#legacy = options.legacy;
  }

  /** Whether a token presented as this model may exist, from its text alone. */
  #mayExist(id: string): boolean {
    const read = this.#tags.read(id);
    if (read.shape === 'tagged') return (read.kind === 'refresh') === (this.#model === 'RefreshToken');
    if (read.shape === 'forged') return false;
    return this.#legacy.open();
  }

  /** What this process read ahead about the record is stale once it is written or deleted. */
  #forget(id: string): void {
    if (this.#model === 'Client') this.#readAhead.forgetClient(id);
    if (this.#model === 'Grant') {
      this.#readAhead.forgetGrant(id);
      this.#recent.forgetGrant(id);
    }
    if (this.#model === 'AccessToken') this.#recent.forgetKey(this.#key(id));
    if (this.#model === 'RefreshToken') this.#readAhead.forgetRefreshAbsent(this.#key(id));
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    this.#forget(id);
    const row = encodePayload(this.#model, payload);
    // A grant's own row carries its id in grant_id too, so a token's query can join it.
    if (this.#model === 'Grant') row.grantId = id;
    const userCode = typeof payload.userCode === 'string' ? this.#key(payload.userCode) : null;
    const ttl = typeof expiresIn === 'number' ? Math.max(0, Math.floor(expiresIn)) : null;
    const legacy = PRESENTED.has(this.#model) && this.#tags.read(id).shape === 'legacy';
    await this.#db.$executeRaw`
      INSERT INTO "auth"."oidc_payloads"
        (model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at, consumed_at, legacy)
      VALUES (${this.#model}, ${this.#key(id)}, ${row.payload}::jsonb, ${row.grantId}, ${userCode},
        ${row.uid}, ${row.accountId}, ${row.clientId},
        CASE WHEN ${ttl}::int IS NULL THEN NULL ELSE now() + make_interval(secs => ${ttl}::int) END,
        CASE WHEN ${row.consumed}::boolean THEN now() ELSE NULL END, ${legacy})
      ON CONFLICT (model, id) DO UPDATE SET
        payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
        uid = EXCLUDED.uid, account_id = EXCLUDED.account_id, client_id = EXCLUDED.client_id,
        expires_at = EXCLUDED.expires_at, legacy = EXCLUDED.legacy,
        consumed_at = COALESCE(oidc_payloads.consumed_at, EXCLUDED.consumed_at)`;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (PRESENTED.has(this.#model) && !this.#mayExist(id)) return undefined;
    if (this.#model === 'Client') {
      const kept = this.#readAhead.client(id);
      if (kept !== undefined) return structuredClone(kept.payload);
      const found = await this.#findRow(id);
      this.#readAhead.keepClient(id, found);
      return found === undefined ? undefined : structuredClone(found);
    }
    if (this.#model === 'Grant') {
      const kept = this.#readAhead.takeGrant(id);
      if (kept !== undefined) return kept.payload;
    }
    if (GRANT_BOUND.has(this.#model)) return this.#findWithGrant(id);
    return this.#findRow(id);
  }

  async #findWithGrant(id: string): Promise<AdapterPayload | undefined> {
    const key = this.#key(id);
    // An access token is read with a refresh token of the same value (see read-ahead.ts).
    const withRefresh = this.#model === 'AccessToken';
    if (withRefresh) {
      const recent = this.#recent.get(key);
      if (recent !== undefined) {
        if (recent.grantId !== null) this.#readAhead.keepGrant(recent.grantId, recent.grant);
        return recent.payload;
      }
    }
    const generation = this.#recent.generation;
    if (this.#model === 'RefreshToken' && this.#readAhead.takeRefreshAbsent(key)) return undefined;
    const rows = await this.#db.$queryRaw<
      {
        model: string;
        payload: unknown;
        consumed_at: Date | null;
        grant_id: string | null;
        grant_payload: unknown;
      }[]
    >`
      SELECT t.model, t.payload, t.consumed_at, t.grant_id, g.payload AS grant_payload
        FROM "auth"."oidc_payloads" t
        LEFT JOIN "auth"."oidc_payloads" g ON g.model = 'Grant' AND g.grant_id = t.grant_id
             AND (g.expires_at IS NULL OR g.expires_at > now())
       WHERE t.model IN (${this.#model}, ${withRefresh ? 'RefreshToken' : this.#model}) AND t.id = ${key}
         AND (t.expires_at IS NULL OR t.expires_at > now())`;
    if (withRefresh && !rows.some((found) => found.model === 'RefreshToken'))
      this.#readAhead.keepRefreshAbsent(key);
    const row = rows.find((found) => found.model === this.#model);
    if (row === undefined) return undefined;
    const grant =
      row.grant_id === null || row.grant_payload === null
        ? undefined
        : decodePayload('Grant', row.grant_payload, row.grant_id, null);
    if (row.grant_id !== null) this.#readAhead.keepGrant(row.grant_id, grant);
    const payload = decodePayload(this.#model, row.payload, id, row.consumed_at);
    if (withRefresh) {
      // Copies: oidc-provider builds its models from what it is handed.
      const kept = {
        payload: structuredClone(payload),
        grantId: row.grant_id,
        grant: structuredClone(grant),
      };
      this.#recent.keep(key, id, kept, generation);
    }
    return payload;
  }

  #findRow(id: string): Promise<AdapterPayload | undefined> {
    return this.#selectOne(Prisma.sql`id = ${this.#key(id)}`, id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#selectOne(Prisma.sql`uid = ${uid}`, undefined);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#selectOne(Prisma.sql`user_code = ${this.#key(userCode)}`, undefined);
  }

  async #selectOne(where: Prisma.Sql, id: string | undefined): Promise<AdapterPayload | undefined> {
    const rows = await this.#db.$queryRaw<{ payload: unknown; consumed_at: Date | null }[]>`
      SELECT payload, consumed_at FROM "auth"."oidc_payloads"
       WHERE model = ${this.#model} AND ${where} AND (expires_at IS NULL OR expires_at > now())
       LIMIT 1`;
    const row = rows[0];
    return row === undefined ? undefined : decodePayload(this.#model, row.payload, id, row.consumed_at);
  }

  async consume(id: string): Promise<void> {
    const key = this.#key(id);
    const won = await this.#db.$queryRaw<{ id: string }[]>`
      UPDATE "auth"."oidc_payloads" SET consumed_at = now()
       WHERE model = ${this.#model} AND id = ${key} AND consumed_at IS NULL
         AND (expires_at IS NULL OR expires_at > now())
       RETURNING id`;
    if (won.length === 1) return;
    const [lost] = await this.#db.$queryRaw<{ grant_id: string | null; consumed_at: Date | null }[]>`
      SELECT grant_id, consumed_at FROM "auth"."oidc_payloads" WHERE model = ${this.#model} AND id = ${key}`;
    if (lost?.consumed_at != null && lost.grant_id !== null) await this.#revokeGrant(lost.grant_id);
    const message = `${this.#model} already used or expired`;
    throw GRANT_SOURCES.has(this.#model)
      ? new errors.InvalidGrant(message)
      : new errors.InvalidRequest(message);
  }

  async destroy(id: string): Promise<void> {
    this.#forget(id);
    const rows = await this.#db.$queryRaw<Owner[]>`
      WITH gone AS (
        DELETE FROM "auth"."oidc_payloads" WHERE model = ${this.#model} AND id = ${this.#key(id)}
        RETURNING model, id, expires_at, account_id, client_id
      ), ${tombstones}
      SELECT account_id, client_id FROM gone`;
    if (ACCESS_TOKENS.has(this.#model)) await this.#report(rows, tokenSha256(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.#recent.forgetGrant(grantId);
    const rows = await this.#db.$queryRaw<Owner[]>`
      WITH gone AS (
        DELETE FROM "auth"."oidc_payloads" WHERE model = ${this.#model} AND grant_id = ${grantId}
        RETURNING model, id, expires_at, account_id, client_id
      ), ${tombstones}
      SELECT account_id, client_id FROM gone`;
    if (ACCESS_TOKENS.has(this.#model)) await this.#report(rows, null);
  }

  /** Every record of a grant, and the grant itself (introspection then finds no grant either). */
  async #revokeGrant(grantId: string): Promise<void> {
    this.#readAhead.forgetGrant(grantId);
    this.#recent.forgetGrant(grantId);
    await this.#db.$executeRaw`
      DELETE FROM "auth"."oidc_payloads" WHERE model = 'Grant' AND id = ${this.#key(grantId)}`;
    const rows = await this.#db.$queryRaw<(Owner & { model: string })[]>`
      WITH gone AS (
        DELETE FROM "auth"."oidc_payloads" WHERE grant_id = ${grantId}
        RETURNING model, id, expires_at, account_id, client_id
      ), ${tombstones}
      SELECT model, account_id, client_id FROM gone`;
    await this.#report(
      rows.filter((row) => ACCESS_TOKENS.has(row.model)),
      null,
    );
  }

  async #report(rows: Owner[], tokenSha256Hex: string | null): Promise<void> {
    if (this.#onRevoked === undefined || rows.length === 0) return;
    const distinct = new Map(
      rows.map(({ account_id, client_id }) => [
        `${account_id} ${client_id}`,
        { accountId: account_id ?? '', clientId: client_id ?? '', tokenSha256: tokenSha256Hex },
      ]),
    );
    await this.#onRevoked([...distinct.values()]);
  }
}
