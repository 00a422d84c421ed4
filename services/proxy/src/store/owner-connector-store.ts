/**
 * The owner's own OAuth clients and generic connectors (table `owner_connectors`, docs/adr/0068),
 * always under the caller's account id. The client secret is sealed as a vault token is (envelope
 * encryption under the key ring's active key, vault/token-cipher.ts), bound to the row's id, the
 * account and `client:<service>` (so neither a vault token nor another row's secret can stand in
 * for it), and leaves this module only decrypted for the registry (connectors/registry.ts), never
 * in a listing. A replaced secret gets a new row id. `rotateBatch` and `keyUsage` are what
 * `pag vault rotate-key` and `pag vault status` need (VaultStore adds them to the tokens').
 */
import { randomUUID } from 'node:crypto';
import type { OwnerSettings } from '@pag/contracts';
import type { OAuthClient } from '../connectors/catalogue.ts';
import type { OwnerDefinition } from '../connectors/owner-connector.ts';
import { ownerFields } from '../connectors/owner-connector.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';
import { openToken, rewrapToken, sealToken } from '../vault/token-cipher.ts';

export interface OwnerConnectorRow {
  service: string;
  /** null: the owner's client for a connector of the catalogue or the deployment. */
  definition: OwnerDefinition | null;
  client: OAuthClient;
}

type Tx = Prisma.TransactionClient | PrismaClient;

const binding = (id: string, accountId: string, service: string) => ({
  tokenId: id,
  accountId,
  service: `client:${service}`,
});

export class OwnerConnectorStore {
  readonly #prisma: PrismaClient;
  readonly #keys: VaultKeyRing;

  constructor(options: { prisma: PrismaClient; keyRing: VaultKeyRing }) {
    this.#prisma = options.prisma;
    this.#keys = options.keyRing;
  }

  /** The account's rows with their secrets opened (for the registry only). */
  async rowsOf(accountId: string): Promise<OwnerConnectorRow[]> {
    const rows = await this.#prisma.ownerConnector.findMany({
      where: { accountId },
      orderBy: { service: 'asc' },
    });
    return rows.map((row) => ({
      service: row.service,
      definition: row.definition === null ? null : (row.definition as unknown as OwnerDefinition),
      client: {
        clientId: row.clientId,
        clientSecret: openToken(
          { keyId: row.keyId, wrappedKey: row.wrappedKey, encryptedValue: row.encryptedSecret },
          this.#keys,
          binding(row.id, accountId, row.service),
        ),
      },
    }));
  }

  /** What the owner entered, without secrets (the dashboard's forms). */
  async settingsOf(accountId: string): Promise<OwnerSettings> {
    const rows = await this.#prisma.ownerConnector.findMany({
      where: { accountId },
      select: { service: true, clientId: true, definition: true },
      orderBy: { service: 'asc' },
    });
    return {
      clients: rows
        .filter((row) => row.definition === null)
        .map((row) => ({ service: row.service, clientId: row.clientId })),
      connectors: rows.flatMap((row) =>
        row.definition === null
          ? []
          : [ownerFields(row.definition as unknown as OwnerDefinition, row.clientId)],
      ),
    };
  }

  /** The row's definition, or undefined when the account has no row for it. */
  async find(
    accountId: string,
    service: string,
  ): Promise<{ definition: OwnerDefinition | null } | undefined> {
    const row = await this.#prisma.ownerConnector.findUnique({
      where: { accountId_service: { accountId, service } },
      select: { definition: true },
    });
    if (row === null) return undefined;
    return { definition: row.definition === null ? null : (row.definition as unknown as OwnerDefinition) };
  }

  /**
   * Creates or replaces the row. `clientSecret` null keeps the stored secret (an edit that did not
   * retype it); false when there is none to keep.
   */
  async save(
    accountId: string,
    service: string,
    input: { definition: OwnerDefinition | null; clientId: string; clientSecret: string | null },
  ): Promise<boolean> {
    return this.#prisma.$transaction(async (tx) => {
      const existing = await tx.ownerConnector.findUnique({
        where: { accountId_service: { accountId, service } },
      });
      const definition =
        input.definition === null ? Prisma.DbNull : (input.definition as unknown as Prisma.InputJsonValue);
      if (input.clientSecret === null) {
        if (existing === null) return false;
        await tx.ownerConnector.update({
          where: { accountId_service: { accountId, service } },
          data: { definition, clientId: input.clientId },
        });
        return true;
      }
      const id = randomUUID();
      const sealed = sealToken(input.clientSecret, this.#keys, binding(id, accountId, service));
      const data = {
        id,
        definition,
        clientId: input.clientId,
        encryptedSecret: sealed.encryptedValue,
        keyId: sealed.keyId,
        wrappedKey: sealed.wrappedKey,
      };
      await tx.ownerConnector.upsert({
        where: { accountId_service: { accountId, service } },
        create: { accountId, service, ...data },
        update: data,
      });
      return true;
    });
  }

  /** Deletes the row, and for an owner's own connector its connection and tokens too. */
  async remove(accountId: string, service: string, withConnection: boolean): Promise<boolean> {
    return this.#prisma.$transaction(async (tx: Tx) => {
      const { count } = await tx.ownerConnector.deleteMany({ where: { accountId, service } });
      if (withConnection) await tx.connection.deleteMany({ where: { accountId, service } });
      return count > 0;
    });
  }

  /** Client secrets per key id. */
  async keyUsage(): Promise<{ keyId: string; tokens: number }[]> {
    const groups = await this.#prisma.ownerConnector.groupBy({ by: ['keyId'], _count: { _all: true } });
    return groups.map((group) => ({ keyId: group.keyId, tokens: group._count._all }));
  }

  /** Rewraps up to `size` secrets not under the active key (as VaultStore.rotateBatch does tokens). */
  async rotateBatch(size: number): Promise<number> {
    return this.#prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<
        {
          id: string;
          account_id: string;
          service: string;
          key_id: string;
          wrapped_key: string;
          encrypted_secret: string;
        }[]
      >`SELECT id, account_id, service, key_id, wrapped_key, encrypted_secret
          FROM proxy.owner_connectors
         WHERE key_id <> ${this.#keys.activeId}
         ORDER BY id LIMIT ${size}
           FOR UPDATE`;
      for (const row of rows) {
        const rewrapped = rewrapToken(
          { keyId: row.key_id, wrappedKey: row.wrapped_key, encryptedValue: row.encrypted_secret },
          this.#keys,
          binding(row.id, row.account_id, row.service),
        );
        await tx.ownerConnector.update({
          where: { id: row.id },
          data: {
            keyId: rewrapped.keyId,
            wrappedKey: rewrapped.wrappedKey,
            encryptedSecret: rewrapped.encryptedValue,
          },
        });
      }
      return rows.length;
    });
  }
}
