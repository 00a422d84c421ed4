import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadBrainConfig } from './config.ts';

describe('brain configuration', () => {
  test('defaults: ops port 9092, in-memory bus, 1.5 s for the auth service', () => {
    const config = loadBrainConfig({ DATABASE_URL: 'postgres://brain@db.internal/pag' });
    expect(config).toEqual({
      opsPort: 9092,
      host: '0.0.0.0',
      databaseUrl: 'postgres://brain@db.internal/pag',
      natsUrl: undefined,
      shutdownDrainMs: 0,
      logLevel: 'info',
      authTimeoutMs: 1500,
      chat: { provider: null, timeoutMs: 60_000, maxRetries: 2, ownerConcurrency: 4, contextTokens: 8_000 },
      promptRun: { timeoutMs: 120_000, proxyCallTimeoutMs: 15_000 },
      encryptionKey: null,
    });
  });

  test('trigger runs: one service call must fit in the run', () => {
    expect(() =>
      loadBrainConfig({
        DATABASE_URL: 'postgres://brain@db.internal/pag',
        PROMPT_RUN_TIMEOUT_MS: '10000',
        PROMPT_PROXY_TIMEOUT_MS: '10000',
      }),
    ).toThrow(/PROMPT_PROXY_TIMEOUT_MS/);
  });

  test('chat: the deployment provider, the sealing key, and the checks across keys', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadBrainConfig({
      DATABASE_URL: 'postgres://brain@db.internal/pag',
      CHAT_BASE_URL: 'http://127.0.0.1:11434/v1',
      CHAT_MODEL: 'llama3.2',
      BRAIN_ENCRYPTION_KEY: key.toString('base64'),
    });
    expect(config.chat.provider).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      apiKey: null,
    });
    expect(config.encryptionKey).toEqual(key);
    const load = () =>
      loadBrainConfig({
        DATABASE_URL: 'postgres://brain@db.internal/pag',
        CHAT_BASE_URL: 'ftp://models.internal/',
        CHAT_API_KEY: 'sk-x',
        CHAT_TIMEOUT_MS: '120000',
        BRAIN_ENCRYPTION_KEY: 'c2hvcnQ=',
      });
    expect(load).toThrow(/CHAT_BASE_URL/);
    expect(load).toThrow(/CHAT_TIMEOUT_MS/);
    expect(load).toThrow(/BRAIN_ENCRYPTION_KEY/);
    expect(() =>
      loadBrainConfig({
        DATABASE_URL: 'postgres://brain@db.internal/pag',
        CHAT_BASE_URL: 'http://m.internal/v1',
      }),
    ).toThrow(/CHAT_MODEL/);
  });

  test('every bad key is named at once', () => {
    const load = () => loadBrainConfig({ AUTH_TIMEOUT_MS: '0', OPS_PORT: 'x' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/DATABASE_URL/);
    expect(load).toThrow(/AUTH_TIMEOUT_MS/);
    expect(load).toThrow(/OPS_PORT/);
  });
});
