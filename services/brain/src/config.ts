/**
 * The brain's configuration: the only reader of the environment, parsed once at start-up; every
 * bad key is listed at once. The keys are declared once, below; the config's type is inferred.
 *
 * AUTH_TIMEOUT_MS bounds the one request the brain makes itself (auth.account.get, to seed a fresh
 * account's identity). It must stay below the gateway's CONTEXT_PART_TIMEOUT_MS (2 s by default),
 * so a silent auth service makes the brain answer UPSTREAM_TIMEOUT before the gateway gives up on it.
 *
 * Chat (docs/adr/0046): CHAT_BASE_URL and CHAT_MODEL name the deployment's OpenAI-compatible
 * provider, set together or not at all (neither: the offline brain, unless an owner set their
 * own); CHAT_API_KEY is optional (local servers need none). CHAT_TIMEOUT_MS bounds the whole
 * provider call, retries included, and must stay below the gateway's CHAT_ROUTE_TIMEOUT_MS.
 * BRAIN_ENCRYPTION_KEY (base64 of 32 bytes) seals the owners' own provider keys; without it an
 * owner can set a provider without a key only.
 *
 * Trigger runs (docs/adr/0051): PROMPT_RUN_TIMEOUT_MS bounds a whole run (every model and service
 * call); keep it below the trigger service's TRIGGER_RUN_TIMEOUT_MS (150 s), so the run fails here
 * with UPSTREAM_TIMEOUT before the trigger stops waiting. PROMPT_PROXY_TIMEOUT_MS bounds the wait
 * for one proxy.calls.forward answer; keep it above the proxy's UPSTREAM_TIMEOUT_MS (8 s), so the
 * proxy's own timeout is the one the model reads.
 */
import { CHAT_ROUTE_TIMEOUT_MS } from '@pag/contracts';
import type { Env } from '@pag/kit';
import {
  databaseEnv,
  defineConfig,
  envMilliseconds,
  envSealingKey,
  envUrl,
  natsCheck,
  processEnv,
  processFrom,
} from '@pag/kit';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const brainConfig = defineConfig({
  env: {
    // The brain has no listener but the ops one: it answers on the bus.
    ...processEnv(9092),
    ...databaseEnv,
    AUTH_TIMEOUT_MS: envMilliseconds(1_500),
    CHAT_BASE_URL: envUrl
      .refine((value) => ['http:', 'https:'].includes(new URL(value).protocol), 'must be an http(s) URL')
      .optional(),
    CHAT_MODEL: z.string().min(1).max(200).optional(),
    CHAT_API_KEY: z.string().min(1).optional(),
    CHAT_TIMEOUT_MS: envMilliseconds(60_000),
    CHAT_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    CHAT_OWNER_CONCURRENCY: positiveInt(4),
    CHAT_CONTEXT_TOKENS: z.coerce.number().int().min(500).default(8_000),
    BRAIN_ENCRYPTION_KEY: envSealingKey.optional(),
    PROMPT_RUN_TIMEOUT_MS: envMilliseconds(120_000),
    PROMPT_PROXY_TIMEOUT_MS: envMilliseconds(15_000),
  },
  checks: [
    natsCheck,
    (env, issue) => {
      if ((env.CHAT_BASE_URL === undefined) !== (env.CHAT_MODEL === undefined))
        issue(
          env.CHAT_BASE_URL === undefined ? 'CHAT_BASE_URL' : 'CHAT_MODEL',
          'set CHAT_BASE_URL and CHAT_MODEL together',
        );
      if (env.CHAT_API_KEY !== undefined && env.CHAT_BASE_URL === undefined)
        issue('CHAT_API_KEY', 'needs CHAT_BASE_URL and CHAT_MODEL');
      if (env.CHAT_TIMEOUT_MS >= CHAT_ROUTE_TIMEOUT_MS)
        issue(
          'CHAT_TIMEOUT_MS',
          `must stay below the gateway's chat route timeout (${CHAT_ROUTE_TIMEOUT_MS} ms)`,
        );
      if (env.PROMPT_PROXY_TIMEOUT_MS >= env.PROMPT_RUN_TIMEOUT_MS)
        issue(
          'PROMPT_PROXY_TIMEOUT_MS',
          'must stay below PROMPT_RUN_TIMEOUT_MS (one service call within a run)',
        );
    },
  ],
  from: (env) => ({
    ...processFrom(env),
    databaseUrl: env.DATABASE_URL,
    /** How long the brain waits for auth.account.get when it seeds a fresh account's identity. */
    authTimeoutMs: env.AUTH_TIMEOUT_MS,
    chat: {
      /** The deployment's provider; null: none (the offline brain, unless the owner set one). */
      provider:
        env.CHAT_BASE_URL === undefined || env.CHAT_MODEL === undefined
          ? null
          : { baseUrl: env.CHAT_BASE_URL, model: env.CHAT_MODEL, apiKey: env.CHAT_API_KEY ?? null },
      timeoutMs: env.CHAT_TIMEOUT_MS,
      maxRetries: env.CHAT_MAX_RETRIES,
      ownerConcurrency: env.CHAT_OWNER_CONCURRENCY,
      contextTokens: env.CHAT_CONTEXT_TOKENS,
    },
    /** A trigger run (brain.prompt.run): its whole duration, and the wait for one service call. */
    promptRun: { timeoutMs: env.PROMPT_RUN_TIMEOUT_MS, proxyCallTimeoutMs: env.PROMPT_PROXY_TIMEOUT_MS },
    /** Seals the owners' provider keys; null: owners cannot store a key. */
    encryptionKey: env.BRAIN_ENCRYPTION_KEY ?? null,
  }),
});

export type BrainConfig = ReturnType<typeof brainConfig.parse>;
export type ChatConfig = BrainConfig['chat'];

export function loadBrainConfig(env: Env): BrainConfig {
  return brainConfig.parse(env);
}
