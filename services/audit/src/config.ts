/**
 * The audit service's configuration: the only reader of the environment, parsed once at start-up;
 * every bad key is listed at once. The keys are declared once, below; the config's type is inferred.
 *
 * DATABASE_URL must name a role that may only read and append (a member of pag_audit_writer,
 * never the tables' owner): the service refuses to start otherwise (store/privilege-guard.ts).
 */
import type { Env } from '@pag/kit';
import { databaseEnv, defineConfig, envMilliseconds, natsCheck, processEnv, processFrom } from '@pag/kit';
import { z } from 'zod';
import { isBase64url32 } from './checkpoints/signing-keys.ts';

const KEY_MESSAGE = 'must be base64url of 32 bytes (43 characters, no padding)';
const base64url32 = z.string().refine(isBase64url32, KEY_MESSAGE);

export const auditConfig = defineConfig({
  env: {
    // The audit service has no listener but the ops one: it consumes the AUDIT stream.
    ...processEnv(9095),
    ...databaseEnv,
    /** Ed25519 seed of the checkpoint signing key (the embedded stack generates one). */
    AUDIT_SIGNING_KEY: base64url32,
    /** Comma-separated raw public keys of retired signing keys, still trusted by verify. */
    AUDIT_VERIFY_KEYS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      )
      .pipe(z.array(base64url32)),
    AUDIT_CHECKPOINT_INTERVAL_MS: envMilliseconds(10_000),
    /** 0: keep forever. */
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(0),
    AUDIT_SEGMENT_ROWS: z.coerce.number().int().positive().default(100_000),
    /** The most events one transaction commits. */
    AUDIT_BATCH_MAX: z.coerce.number().int().positive().max(10_000).default(500),
  },
  checks: [natsCheck],
  from: (env) => ({
    ...processFrom(env),
    databaseUrl: env.DATABASE_URL,
    signingKey: env.AUDIT_SIGNING_KEY,
    retiredVerifyKeys: env.AUDIT_VERIFY_KEYS,
    checkpointIntervalMs: env.AUDIT_CHECKPOINT_INTERVAL_MS,
    retentionDays: env.AUDIT_RETENTION_DAYS,
    segmentRows: env.AUDIT_SEGMENT_ROWS,
    batchMax: env.AUDIT_BATCH_MAX,
  }),
});

export type AuditConfig = ReturnType<typeof auditConfig.parse>;

export function loadAuditConfig(env: Env): AuditConfig {
  return auditConfig.parse(env);
}
