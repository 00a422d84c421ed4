/**
 * The proxy's data for connecting and refreshing (with store/vault-store.ts, the only modules
 * that touch the database): connect attempts (single-use state), the OAuth tokens of a
 * connection in the vault (access token and refresh token, each its own vault row under labels
 * oauth-access and oauth-refresh, sealed like every vault value: envelope encryption under the key
 * ring's active key, vault/token-cipher.ts, so `pag vault rotate-key` rewraps them too),
 * disconnecting, and the one refresh at a time per connection. Every row written here is announced
 * to the replicas' credential caches by the tables' trigger (store/credential-changes.ts).
 *
 * One refresh at a time, across every replica: `refreshUnderLock` runs in one transaction that
 * first locks the connection row (SELECT … FOR UPDATE). Whoever holds the lock re-reads the access
 * token: if another caller refreshed it meanwhile it is used as it is; else the refresh token is
 * sent to the provider while the lock is held, and the answer stored before the lock is let go.
 * Waiting callers then find the fresh token. A refusal marks the connection needs_reconnect in the
 * same transaction; a provider that cannot be reached changes nothing (rollback).
 */
import { randomUUID } from 'node:crypto';
import { sqlPoolOf } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TokenSet } from '../oauth/provider-client.ts';
import { ProviderRefusedError } from '../oauth/provider-client.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';
import { openToken, sealToken } from '../vault/token-cipher.ts';

export const ACCESS_LABEL = 'oauth-access';
export const REFRESH_LABEL = 'oauth-refresh';

export interface ConnectAttemptRow {
  accountId: string;
  service: string;
  sessionHash: string;
  codeVerifier: string | null;
  redirectUri: string;
  expiresAt: Date;
}

export type RefreshOutcome =
  /** Another caller refreshed meanwhile (or the token was still fresh): use it. */
  | { outcome: 'fresh' | 'refreshed'; tokenId: string; value: string; expiresAt: Date | null }
  /** Nothing to refresh with: no refresh token, or not connected (any more). */
  | { outcome: 'no_refresh' | 'not_connected' }
  | { outcome: 'refused'; error: ProviderRefusedError };

interface TokenRow {
  id: string;
  key_id: string | null;
  wrapped_key: string | null;
  encrypted_value: string;
  expires_at: Date | null;
}

export class ConnectStore {
  readonly #prisma: PrismaClient;
  readonly #sql: ReturnType<typeof sqlPoolOf>;
  readonly #keys: VaultKeyRing;

  constructor(options: { prisma: PrismaClient; keyRing: VaultKeyRing }) {
    this.#prisma = options.prisma;
    this.#sql = sqlPoolOf(options.prisma);
    this.#keys = options.keyRing;
  }

  async createAttempt(stateHash: string, attempt: ConnectAttemptRow): Promise<void> {
    await this.#prisma.connectAttempt.deleteMany({ where: { expiresAt: { lt: new Date() } } });
    await this.#prisma.connectAttempt.create({ data: { stateHash, ...attempt } });
  }

  /** The attempt of this state, deleted as it is read: a state works once. */
  async takeAttempt(stateHash: string): Promise<ConnectAttemptRow | null> {
    const { rows } = await this.#sql.query<ConnectAttemptRow>({
      name: 'proxy_connect_attempt_take',
      text: `DELETE FROM proxy.connect_attempts WHERE state_hash = $1
             RETURNING account_id AS "accountId", service, session_hash AS "sessionHash",
                       code_verifier AS "codeVerifier", redirect_uri AS "redirectUri", expires_at AS "expiresAt"`,
      values: [stateHash],
    });
    return rows[0] ?? null;
  }

  /**
   * A connection's tokens after the owner connected (again): connected, new access token, and the
   * refresh token replaced (or removed when the provider gave none).
   */
  async saveConnected(accountId: string, service: string, tokens: TokenSet): Promise<void> {
    const accessId = randomUUID();
    const refreshId = randomUUID();
    const seal = (value: string, tokenId: string) =>
      sealToken(value, this.#keys, { tokenId, accountId, service });
    const now = new Date();
    await this.#prisma.$transaction(async (tx) => {
      await tx.connection.upsert({
        where: { accountId_service: { accountId, service } },
        create: { accountId, service, status: 'connected', connectedAt: now },
        update: { status: 'connected', connectedAt: now },
      });
      // Whatever the connection held before (an API key, old tokens) goes.
      await tx.vaultToken.deleteMany({ where: { accountId, service } });
      await tx.vaultToken.create({
        data: {
          id: accessId,
          accountId,
          service,
          label: ACCESS_LABEL,
          kind: 'oauth2',
          scopes: tokens.scopes,
          ...seal(tokens.accessToken, accessId),
          createdAt: now,
          expiresAt: tokens.expiresAt,
        },
      });
      if (tokens.refreshToken !== null) {
        await tx.vaultToken.create({
          data: {
            id: refreshId,
            accountId,
            service,
            label: REFRESH_LABEL,
            kind: 'oauth2_refresh',
            scopes: tokens.scopes,
            ...seal(tokens.refreshToken, refreshId),
            createdAt: now,
            expiresAt: null,
          },
        });
      }
    });
  }

  /** The stored OAuth tokens of a connection, decrypted (for revocation on disconnect). */
  async oauthTokens(
    accountId: string,
    service: string,
  ): Promise<{ access: string | null; refresh: string | null }> {
    const rows = await this.#prisma.vaultToken.findMany({
      where: { accountId, service, label: { in: [ACCESS_LABEL, REFRESH_LABEL] } },
      select: { id: true, label: true, keyId: true, wrappedKey: true, encryptedValue: true },
    });
    const open = (label: string) => {
      const row = rows.find((item) => item.label === label);
      return row === undefined ? null : openToken(row, this.#keys, { tokenId: row.id, accountId, service });
    };
    return { access: open(ACCESS_LABEL), refresh: open(REFRESH_LABEL) };
  }

  /** Deletes the connection and its vault tokens; false when there was none. */
  async deleteConnection(accountId: string, service: string): Promise<boolean> {
    const { count } = await this.#prisma.connection.deleteMany({ where: { accountId, service } });
    return count > 0;
  }

  /**
   * A provider answered 401 to this access token: it is taken as expired, so the next lookup
   * refreshes it, but only while it is still the current one and a refresh token exists (a key
   * without one would otherwise be lost to a single 401).
   */
  async expireAccessToken(accountId: string, service: string, tokenId: string): Promise<boolean> {
    const { rowCount } = await this.#sql.query({
      name: 'proxy_access_token_expire',
      text: `UPDATE proxy.vault_tokens SET expires_at = now()
              WHERE id = $1::uuid AND account_id = $2::uuid AND service = $3 AND kind = 'oauth2'
                AND (expires_at IS NULL OR expires_at > now())
                AND EXISTS (SELECT 1 FROM proxy.vault_tokens r
                             WHERE r.account_id = $2::uuid AND r.service = $3 AND r.kind = 'oauth2_refresh')`,
      values: [tokenId, accountId, service],
    });
    return (rowCount ?? 0) > 0;
  }

  /**
   * Refreshes the connection's access token unless another caller did (see the top of the
   * file). `staleTokenId`: the token the caller found too old (or refused by a 401); a newer one,
   * or the same one fresh for `marginMs` more, is taken as it is.
   */
  async refreshUnderLock(
    accountId: string,
    service: string,
    staleTokenId: string | null,
    marginMs: number,
    refresh: (refreshToken: string) => Promise<TokenSet>,
  ): Promise<RefreshOutcome> {
    const client = await this.#sql.connect();
    const open = (row: TokenRow) =>
      openToken(
        { keyId: row.key_id, wrappedKey: row.wrapped_key, encryptedValue: row.encrypted_value },
        this.#keys,
        { tokenId: row.id, accountId, service },
      );
    try {
      await client.query('BEGIN');
      const connection = await client.query<{ status: string }>(
        `SELECT status::text AS status FROM proxy.connections
          WHERE account_id = $1::uuid AND service = $2 FOR UPDATE`,
        [accountId, service],
      );
      if (connection.rows[0]?.status !== 'connected') {
        await client.query('ROLLBACK');
        return { outcome: 'not_connected' };
      }
      const tokens = await client.query<TokenRow & { kind: string }>(
        `SELECT id, kind::text AS kind, key_id, wrapped_key, encrypted_value, expires_at FROM proxy.vault_tokens
          WHERE account_id = $1::uuid AND service = $2 AND label IN ($3, $4)`,
        [accountId, service, ACCESS_LABEL, REFRESH_LABEL],
      );
      const access = tokens.rows.find((row) => row.kind === 'oauth2');
      const refreshRow = tokens.rows.find((row) => row.kind === 'oauth2_refresh');
      const freshUntil = Date.now() + marginMs;
      if (
        access !== undefined &&
        (access.expires_at === null || access.expires_at.getTime() > freshUntil) &&
        access.id !== staleTokenId
      ) {
        await client.query('COMMIT');
        return { outcome: 'fresh', tokenId: access.id, value: open(access), expiresAt: access.expires_at };
      }
      if (refreshRow === undefined) {
        await client.query('ROLLBACK');
        return { outcome: 'no_refresh' };
      }
      let answer: TokenSet;
      try {
        answer = await refresh(open(refreshRow));
      } catch (error) {
        if (!(error instanceof ProviderRefusedError)) throw error;
        await client.query(
          `UPDATE proxy.connections SET status = 'needs_reconnect', updated_at = now()
            WHERE account_id = $1::uuid AND service = $2`,
          [accountId, service],
        );
        await client.query('COMMIT');
        return { outcome: 'refused', error };
      }
      const accessId = randomUUID();
      const seal = (value: string, tokenId: string) =>
        sealToken(value, this.#keys, { tokenId, accountId, service });
      // The access token's row gets a new id with its new value: the ciphertext is bound to it.
      const sealedAccess = seal(answer.accessToken, accessId);
      await client.query(
        `INSERT INTO proxy.vault_tokens (id, account_id, service, label, kind, scopes, key_id, wrapped_key, encrypted_value, created_at, expires_at)
         VALUES ($1::uuid, $2::uuid, $3, $4, 'oauth2', $5::text[], $6, $7, $8, now(), $9)
         ON CONFLICT (account_id, service, label) DO UPDATE
           SET id = EXCLUDED.id, scopes = EXCLUDED.scopes, key_id = EXCLUDED.key_id,
               wrapped_key = EXCLUDED.wrapped_key, encrypted_value = EXCLUDED.encrypted_value,
               created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, last_used_at = NULL`,
        [
          accessId,
          accountId,
          service,
          ACCESS_LABEL,
          answer.scopes,
          sealedAccess.keyId,
          sealedAccess.wrappedKey,
          sealedAccess.encryptedValue,
          answer.expiresAt,
        ],
      );
      // An answer without a refresh token keeps the stored one (RFC 6749 §6: it may not rotate).
      if (answer.refreshToken !== null) {
        const refreshId = randomUUID();
        const sealedRefresh = seal(answer.refreshToken, refreshId);
        await client.query(
          `UPDATE proxy.vault_tokens
              SET id = $1::uuid, key_id = $2, wrapped_key = $3, encrypted_value = $4, created_at = now()
            WHERE id = $5::uuid AND account_id = $6::uuid`,
          [
            refreshId,
            sealedRefresh.keyId,
            sealedRefresh.wrappedKey,
            sealedRefresh.encryptedValue,
            refreshRow.id,
            accountId,
          ],
        );
      }
      await client.query(
        `UPDATE proxy.connections SET refreshed_at = now(), refresh_count = refresh_count + 1, updated_at = now()
          WHERE account_id = $1::uuid AND service = $2`,
        [accountId, service],
      );
      await client.query('COMMIT');
      return {
        outcome: 'refreshed',
        tokenId: accessId,
        value: answer.accessToken,
        expiresAt: answer.expiresAt,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
