/**
 * The owner's own OpenAI-compatible provider (provider_settings, one row per account). The API
 * key is stored sealed (kit's sealSecret, AES-256-GCM bound to the account id, under
 * BRAIN_ENCRYPTION_KEY): a sealed key copied into another owner's row does not open. The key
 * never leaves this store except to the provider client.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface StoredProvider {
  baseUrl: string;
  model: string;
  /** Sealed; null: none (a local server without keys). */
  apiKeySealed: string | null;
  updatedAt: Date;
}

export class ProviderStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async find(accountId: string): Promise<StoredProvider | null> {
    return this.#prisma.providerSetting.findUnique({
      where: { accountId },
      select: { baseUrl: true, model: true, apiKeySealed: true, updatedAt: true },
    });
  }

  /** apiKeySealed undefined keeps the stored key (or none, for a new row). */
  async save(
    accountId: string,
    fields: { baseUrl: string; model: string; apiKeySealed?: string | null | undefined },
  ): Promise<void> {
    await this.#prisma.providerSetting.upsert({
      where: { accountId },
      create: {
        accountId,
        baseUrl: fields.baseUrl,
        model: fields.model,
        apiKeySealed: fields.apiKeySealed ?? null,
      },
      update: {
        baseUrl: fields.baseUrl,
        model: fields.model,
        ...(fields.apiKeySealed === undefined ? {} : { apiKeySealed: fields.apiKeySealed }),
      },
    });
  }

  async clear(accountId: string): Promise<void> {
    await this.#prisma.providerSetting.deleteMany({ where: { accountId } });
  }
}
