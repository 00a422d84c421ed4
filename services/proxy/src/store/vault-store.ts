/**
 * The proxy's data (the only module that talks to Prisma): connections and vault tokens, always
 * read and written under the caller's account id (tenancy: it leads every key and every filter).
 * Token values leave this module only decrypted for a forwarded call (`credentialFor`); listings
 * select metadata columns and never the ciphertext. Values are sealed under a data key of their
 * own, wrapped by the key ring's active key (vault/token-cipher.ts); `rotateBatch` rewraps the data
 * keys of rows under other keys, a short transaction per batch, while calls keep reading: a reader
 * takes key id, wrapped key and value in one statement and the ring holds old and new key.
 *
 * `touch` (last_used_at) runs without making the request wait; close() waits for the writes
 * still running, so the database client can be disconnected after it.
 */
import { randomUUID } from 'node:crypto';
import type { ConnectedService, VaultTokenMetadata } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { sqlPoolOf } from '@pag/kit';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import type { ValidApiKeyConnection } from '../domain/api-key-input.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';
import { openToken, rewrapToken, sealToken } from '../vault/token-cipher.ts';
import { OwnerConnectorStore } from './owner-connector-store.ts';

/** What a forwarded call needs: the connection's state and, when usable, the decrypted value. */
export type CredentialLookup =
  | { state: 'missing' }
  | { state: 'expired' | 'error' | 'needs_reconnect' }
  /** An OAuth access token expired, but a refresh token is there: refresh (calls/connection.ts). */
  | { state: 'stale'; tokenId: string | null }
  | { state: 'connected'; tokenId: string; value: string; expiresAt: Date | null };

const METADATA = {
  id: true,
  service: true,
  label: true,
  kind: true,
  scopes: true,
  keyId: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  connection: { select: { status: true } },
} as const;

/** How many vault tokens are under a key-encryption key; `keyId` null: the v1 format of before. */
export interface KeyUsage {
  keyId: string | null;
  tokens: number;
}

export interface VaultStoreOptions {
  prisma: PrismaClient;
  keyRing: VaultKeyRing;
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  logger?: Logger;
}

export class VaultStore {
  readonly #prisma: PrismaClient;
  readonly #sql: ReturnType<typeof sqlPoolOf>;
  readonly #keys: VaultKeyRing;
  readonly #connectors: ReadonlyMap<string, ConnectorDefinition>;
  readonly #logger: Logger | undefined;
  readonly #pendingWrites = new Set<Promise<void>>();
  /** The owners' own clients and connectors; their secrets rotate with the tokens. */
  readonly owners: OwnerConnectorStore;

  constructor(options: VaultStoreOptions) {
    this.owners = new OwnerConnectorStore({ prisma: options.prisma, keyRing: options.keyRing });
    this.#prisma = options.prisma;
    this.#sql = sqlPoolOf(options.prisma);
    this.#keys = options.keyRing;
    this.#connectors = options.connectors;
    this.#logger = options.logger;
  }

  /**
   * The account's connections to services of the catalogue, by name. Read on every
   * GET /api/v1/gateway/context (its services part), so one named statement on node-postgres
   * (kit's sqlPoolOf, as the brain's context read): Prisma's request pipeline cost about 0.3 ms of
   * CPU per statement (docs/adr/0043). PostgreSQL writes the time as toISOString does (UTC,
   * milliseconds: connected_at is timestamptz(3)). `connectors`: the account's (with the owner's
   * own, connectors/registry.ts); by default the catalogue and the deployment's.
   */
  async listConnections(
    accountId: string,
    connectors: ReadonlyMap<string, ConnectorDefinition> = this.#connectors,
  ): Promise<ConnectedService[]> {
    const { rows } = await this.#sql.query<{
      service: string;
      status: ConnectedService['status'];
      connected_at: string;
    }>({
      name: 'proxy_connections_list',
      text: `SELECT service, status::text AS status,
                    to_char(connected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS connected_at
               FROM proxy.connections WHERE account_id = $1::uuid ORDER BY service`,
      values: [accountId],
    });
    return rows.flatMap((row) => {
      const connector = connectors.get(row.service);
      if (connector === undefined) return [];
      return [
        {
          name: row.service,
          displayName: connector.displayName,
          status: row.status,
          health: row.status === 'connected' ? ('healthy' as const) : ('needs_reconnect' as const),
          connectedAt: row.connected_at,
        },
      ];
    });
  }

  /** The account's connections by service name: healthy (status connected) or needing a reconnect. */
  async connectionHealth(accountId: string): Promise<Map<string, 'healthy' | 'needs_reconnect'>> {
    const rows = await this.#prisma.connection.findMany({
      where: { accountId },
      select: { service: true, status: true },
    });
    return new Map(
      rows.map((row) => [row.service, row.status === 'connected' ? 'healthy' : 'needs_reconnect']),
    );
  }

  /** The account's vault tokens, described; never their values. */
  async listTokens(accountId: string): Promise<VaultTokenMetadata[]> {
    const rows = await this.#prisma.vaultToken.findMany({
      where: { accountId },
      select: METADATA,
      orderBy: [{ service: 'asc' }, { createdAt: 'asc' }],
    });
    return rows.map((row) => ({
      id: row.id,
      service: row.service,
      label: row.label,
      kind: row.kind,
      scopes: row.scopes,
      keyId: row.keyId,
      connectionStatus: row.connection.status,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt?.toISOString() ?? null,
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /**
   * The credential to call `service` with for this account: the newest token that has not
   * expired. A connection whose tokens have all expired is marked expired (and reported so).
   */
  async credentialFor(accountId: string, service: string, now = new Date()): Promise<CredentialLookup> {
    const connection = await this.#prisma.connection.findUnique({
      where: { accountId_service: { accountId, service } },
      select: { status: true },
    });
    if (connection === null) return { state: 'missing' };
    if (connection.status !== 'connected') return { state: connection.status };
    const token = await this.#prisma.vaultToken.findFirst({
      where: {
        accountId,
        service,
        kind: { not: 'oauth2_refresh' },
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
      orderBy: { createdAt: 'desc' },
      // One statement: key id, wrapped key and value of the same version of the row, even while
      // a rotation rewraps it.
      select: { id: true, keyId: true, wrappedKey: true, encryptedValue: true, expiresAt: true },
    });
    if (token === null) {
      // An OAuth connection whose access token expired but which can refresh is not expired.
      const refreshable = await this.#prisma.vaultToken.findFirst({
        where: { accountId, service, kind: 'oauth2_refresh' },
        select: { id: true },
      });
      if (refreshable !== null) return { state: 'stale', tokenId: null };
      this.#background(
        this.#prisma.connection
          .updateMany({ where: { accountId, service, status: 'connected' }, data: { status: 'expired' } })
          .then(() => undefined),
        'connection not marked expired',
      );
      return { state: 'expired' };
    }
    const value = openToken(token, this.#keys, { tokenId: token.id, accountId, service });
    return { state: 'connected', tokenId: token.id, value, expiresAt: token.expiresAt };
  }

  /** Records that a token was used (at `at`); the caller does not wait for it. */
  touch(accountId: string, tokenId: string, at = new Date()): void {
    this.#background(
      this.#prisma.vaultToken
        .updateMany({ where: { id: tokenId, accountId }, data: { lastUsedAt: at } })
        .then(() => undefined),
      'last_used_at not recorded',
    );
  }

  /**
   * Connects a service with a credential the operator supplies (until the OAuth connect flow
   * exists): the connection becomes `connected`, and the token under this label is stored, or
   * replaced (new id, new creation time) when the label was used before.
   */
  async storeApiKeyConnection(
    input: ValidApiKeyConnection,
  ): Promise<{ service: ConnectedService; token: VaultTokenMetadata }> {
    const { accountId, service, label, value, scopes } = input;
    const id = randomUUID();
    const sealed = sealToken(value, this.#keys, { tokenId: id, accountId, service });
    const now = new Date();
    await this.#prisma.$transaction(async (tx) => {
      await tx.connection.upsert({
        where: { accountId_service: { accountId, service } },
        create: { accountId, service, status: 'connected', connectedAt: now },
        update: { status: 'connected', connectedAt: now },
      });
      const fields = { kind: 'api_key', scopes, ...sealed, createdAt: now, expiresAt: null } as const;
      await tx.vaultToken.upsert({
        where: { accountId_service_label: { accountId, service, label } },
        create: { id, accountId, service, label, ...fields },
        // The id changes with the value: the ciphertext is bound to it.
        update: { id, ...fields, lastUsedAt: null },
      });
    });
    const [connected] = (await this.listConnections(accountId)).filter((item) => item.name === service);
    const token = (await this.listTokens(accountId)).find((item) => item.id === id);
    if (connected === undefined || token === undefined) throw new Error('stored connection not found again');
    return { service: connected, token };
  }

  /**
   * Operator view, across accounts (no tenant asks this): how many tokens each key id wraps.
   */
  async keyUsage(): Promise<KeyUsage[]> {
    const groups = await this.#prisma.vaultToken.groupBy({
      by: ['keyId'],
      _count: { _all: true },
      orderBy: { keyId: 'asc' },
    });
    const usage = new Map(groups.map((group) => [group.keyId, group._count._all]));
    // The owners' client secrets are sealed under the same ring: a key wrapping one is in use.
    for (const entry of await this.owners.keyUsage())
      usage.set(entry.keyId, (usage.get(entry.keyId) ?? 0) + entry.tokens);
    return [...usage]
      .map(([keyId, tokens]) => ({ keyId, tokens }))
      .sort(
        (a, b) =>
          Number(a.keyId === null) - Number(b.keyId === null) || (a.keyId ?? '').localeCompare(b.keyId ?? ''),
      );
  }

  /**
   * Rewraps up to `size` tokens not under the active key, in one short transaction that locks
   * those rows only. FOR UPDATE waits for a write under way on a row (last_used_at, a token
   * replaced) and then sees its new version; not SKIP LOCKED, which would pass over rows a call
   * is touching and could end the rotation with rows left. Only data keys are unwrapped and
   * wrapped again; a v1 value is sealed afresh. Resolves with how many were rewrapped: 0 when
   * none is left under another key.
   */
  async rotateBatch(size: number): Promise<number> {
    const tokens = await this.#rotateTokens(size);
    // Then the owners' client secrets (store/owner-connector-store.ts), in the same batches.
    return tokens < size ? tokens + (await this.owners.rotateBatch(size - tokens)) : tokens;
  }

  async #rotateTokens(size: number): Promise<number> {
    return this.#prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<
        {
          id: string;
          account_id: string;
          service: string;
          key_id: string | null;
          wrapped_key: string | null;
          encrypted_value: string;
        }[]
      >`SELECT id, account_id, service, key_id, wrapped_key, encrypted_value
          FROM proxy.vault_tokens
         WHERE key_id IS DISTINCT FROM ${this.#keys.activeId}
         ORDER BY id LIMIT ${size}
           FOR UPDATE`;
      for (const row of rows) {
        const binding = { tokenId: row.id, accountId: row.account_id, service: row.service };
        const sealed = {
          keyId: row.key_id,
          wrappedKey: row.wrapped_key,
          encryptedValue: row.encrypted_value,
        };
        const rewrapped = rewrapToken(sealed, this.#keys, binding);
        await tx.vaultToken.update({ where: { id: row.id }, data: rewrapped });
      }
      return rows.length;
    });
  }

  /** Waits for background writes still running (before the client disconnects). */
  async close(): Promise<void> {
    while (this.#pendingWrites.size > 0) await Promise.allSettled([...this.#pendingWrites]);
  }

  #background(write: Promise<void>, failure: string): void {
    const tracked = write.catch((error: unknown) => this.#logger?.warn({ err: error }, failure));
    this.#pendingWrites.add(tracked);
    void tracked.finally(() => this.#pendingWrites.delete(tracked));
  }
}
