/**
 * `pnpm --filter @pag/auth keys:rotate`: makes a new ID-token signing key and retires the current
 * one, which stays published (and verifying) for a week. Each replica signs with the new key from
 * its next start; restart them after rotating. The operator CLI (`pnpm pag keys rotate`) calls the
 * same rotateSigningKeys.
 */
import { ConfigError, createLogger, envLogLevel, envUrl, parseConfig, runMain } from '@pag/kit';
import { z } from 'zod';
import { openAuthDatabase } from '../store/auth-database.ts';
import { rotateSigningKeys } from '../store/signing-keys.ts';

const RotateEnv = z.object({
  DATABASE_URL: envUrl.optional(),
  KEY_ENCRYPTION_KEY: z.string().optional(),
  LOG_LEVEL: envLogLevel,
});

await runMain('auth keys:rotate', async () => {
  const env = parseConfig(RotateEnv, process.env);
  const key =
    env.KEY_ENCRYPTION_KEY === undefined ? undefined : Buffer.from(env.KEY_ENCRYPTION_KEY, 'base64');
  const missing = [
    ...(env.DATABASE_URL === undefined ? ['DATABASE_URL: required'] : []),
    ...(key?.length !== 32 ? ['KEY_ENCRYPTION_KEY: required, the base64 of 32 bytes the service uses'] : []),
  ];
  if (missing.length > 0 || env.DATABASE_URL === undefined || key === undefined)
    throw new ConfigError(missing);
  const logger = createLogger({ service: 'auth', level: env.LOG_LEVEL });
  const prisma = openAuthDatabase({ databaseUrl: env.DATABASE_URL, logger });
  try {
    const result = await rotateSigningKeys({ prisma, keyEncryptionKey: key });
    process.stdout.write(
      `new signing key ${result.kid}; retired ${result.retired.join(', ') || 'none'}. Restart the auth service to sign with it.\n`,
    );
  } finally {
    await prisma.$disconnect();
  }
});
