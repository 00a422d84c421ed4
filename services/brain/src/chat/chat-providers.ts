/**
 * Which provider answers an owner's chat: the owner's own (provider_settings, set on the
 * dashboard), else the deployment's (CHAT_BASE_URL, CHAT_MODEL, CHAT_API_KEY), else none: the
 * offline brain. The owner's key is sealed under BRAIN_ENCRYPTION_KEY, bound to the account
 * (kit's sealSecret); it is opened only to make a call and never shown (settings say hasApiKey).
 */
import type { ProviderSet, ProviderSettings } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { openSecret, SealedSecretError, sealSecret } from '@pag/kit';
import type { ProviderStore, StoredProvider } from '../store/provider-store.ts';
import type { ProviderEndpoint } from './provider-client.ts';

export interface ResolvedProvider extends ProviderEndpoint {
  source: 'owner' | 'deployment';
}

export interface ChatProvidersOptions {
  store: ProviderStore;
  deployment: ProviderEndpoint | null;
  encryptionKey: Buffer | null;
}

export class ChatProviders {
  readonly #store: ProviderStore;
  readonly #deployment: ProviderEndpoint | null;
  readonly #key: Buffer | null;

  constructor(options: ChatProvidersOptions) {
    this.#store = options.store;
    this.#deployment = options.deployment;
    this.#key = options.encryptionKey;
  }

  /** The provider for this owner's chat; null: none configured (the offline brain). */
  async resolve(accountId: string): Promise<ResolvedProvider | null> {
    const own = await this.#store.find(accountId);
    if (own !== null) {
      const apiKey = own.apiKeySealed === null ? null : this.#open(own.apiKeySealed, accountId);
      return { source: 'owner', baseUrl: own.baseUrl, model: own.model, apiKey };
    }
    return this.#deployment === null ? null : { source: 'deployment', ...this.#deployment };
  }

  async settings(accountId: string): Promise<ProviderSettings> {
    return this.#settings(await this.#store.find(accountId));
  }

  async set(input: ProviderSet): Promise<ProviderSettings> {
    let apiKeySealed: string | null | undefined;
    if (typeof input.apiKey === 'string')
      apiKeySealed = sealSecret(input.apiKey, this.#requireKey(), input.accountId);
    else apiKeySealed = input.apiKey;
    await this.#store.save(input.accountId, { baseUrl: input.baseUrl, model: input.model, apiKeySealed });
    return this.settings(input.accountId);
  }

  async clear(accountId: string): Promise<ProviderSettings> {
    await this.#store.clear(accountId);
    return this.settings(accountId);
  }

  #settings(own: StoredProvider | null): ProviderSettings {
    if (own !== null) {
      return {
        source: 'owner',
        baseUrl: own.baseUrl,
        model: own.model,
        hasApiKey: own.apiKeySealed !== null,
        updatedAt: own.updatedAt.toISOString(),
      };
    }
    if (this.#deployment !== null) {
      return {
        source: 'deployment',
        baseUrl: this.#deployment.baseUrl,
        model: this.#deployment.model,
        hasApiKey: this.#deployment.apiKey !== null,
        updatedAt: null,
      };
    }
    return { source: 'none', baseUrl: null, model: null, hasApiKey: false, updatedAt: null };
  }

  #requireKey(): Buffer {
    if (this.#key === null) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The brain cannot store API keys: BRAIN_ENCRYPTION_KEY is not set.',
        {
          expose: true,
          hint: 'The operator sets BRAIN_ENCRYPTION_KEY (base64 of 32 bytes); a provider without a key can be set meanwhile.',
        },
      );
    }
    return this.#key;
  }

  #open(sealed: string, accountId: string): string {
    try {
      return openSecret(sealed, this.#requireKey(), accountId);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        "The owner's provider key cannot be opened with this BRAIN_ENCRYPTION_KEY.",
        {
          cause: error,
          expose: true,
          hint: 'The owner sets the provider key again on the dashboard, or the operator restores the key it was stored with.',
        },
      );
    }
  }
}
