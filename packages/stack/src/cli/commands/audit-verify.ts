/**
 * `pag audit verify [--from N]`: recomputes the whole audit chain and checks every checkpoint's
 * signature (services/audit/src/verify, docs/adr/0039). The last line is `ok <rows> rows`, or
 * `broken at seq N: <kind>: <why>` with exit code 1. The trusted keys come from the environment
 * (AUDIT_SIGNING_KEY, else the embedded stack's, from DATA_DIR/secrets.json; AUDIT_VERIFY_KEYS
 * for retired ones), never from the database a superuser could rewrite.
 */
import type { ChainIntact, TrustedKeys } from '@pag/audit';
import { verifyAuditLog, verifyKeys } from '@pag/audit';
import { embeddedAuditSigningKey, loadStackSecrets } from '../../secrets.ts';
import type { Command, CommandContext } from '../command.ts';
import { CliError } from '../command.ts';

/** At most one progress line this often: a log of millions of rows takes a while. */
const PROGRESS_EVERY_MS = 5_000;

function fromOption(context: CommandContext): number | undefined {
  const value = context.values.from;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9]\d{0,15}$/.test(value))
    throw new CliError('--from must be a sequence number (a whole number from 1)');
  return Number(value);
}

async function trustedKeys(context: CommandContext): Promise<TrustedKeys> {
  const signingKey =
    context.env.AUDIT_SIGNING_KEY ?? embeddedAuditSigningKey(await loadStackSecrets(context.dataDir));
  const retired = (context.env.AUDIT_VERIFY_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  try {
    return verifyKeys(signingKey, retired);
  } catch (error) {
    throw new CliError(`AUDIT_SIGNING_KEY or AUDIT_VERIFY_KEYS: ${(error as Error).message}`);
  }
}

function describeStart(result: ChainIntact): string | null {
  switch (result.start.from) {
    case 'genesis':
      return null;
    case 'checkpoint':
      return `the log starts after seq ${result.start.seq} (pruned), anchored by its signed checkpoint`;
    case 'trusted row':
      return `checked from seq ${result.start.seq + 1} on (--from): row ${result.start.seq}'s stored hash is taken on trust`;
  }
}

export const auditVerify: Command = {
  name: 'audit verify',
  usage: '[--from N]',
  options: { from: { type: 'string' } },
  async run(context) {
    const from = fromOption(context);
    const keys = await trustedKeys(context);
    let lastProgress = Date.now();
    const result = await verifyAuditLog({
      databaseUrl: context.databaseUrl,
      keys,
      from,
      logger: context.logger,
      onProgress: ({ rows, seq }) => {
        if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
        lastProgress = Date.now();
        context.out(`checked ${rows} rows (at seq ${seq})`);
      },
    });
    if (!result.ok) {
      context.out(`broken at seq ${result.seq}: ${result.kind}: ${result.why}`);
      return 1;
    }
    const start = describeStart(result);
    if (start !== null) context.out(start);
    // Worth keeping outside the database: a later verify that finds less than this was cut.
    if (result.lastCheckpoint !== null) {
      const { seq, hash, signedAt } = result.lastCheckpoint;
      context.out(`newest checkpoint: seq ${seq}, hash ${hash}, signed ${signedAt}`);
    }
    context.out(`ok ${result.rows} rows`);
    return 0;
  },
};
