/**
 * The proxy's vault keys (docs/adr/0066-envelope-encrypted-vault.md):
 * - `pag vault status`: how many stored credentials each key id wraps, the active key, and which
 *   keys of the ring nothing needs any more;
 * - `pag vault rotate-key [--batch N]`: rewraps every credential's data key under the ring's
 *   active key (VAULT_ACTIVE_KEY_ID, else the first of VAULT_KEYS), in batches of short
 *   transactions while the proxy keeps serving; says what is left under other keys and when the
 *   old key can be retired. Every running proxy replica must hold the new key first.
 */
import type { VaultKeyRing, VaultKeyStatus } from '@pag/proxy';
import { openProxyStore } from '@pag/proxy';
import type { Command, CommandContext } from '../command.ts';
import { CliError } from '../command.ts';

function describeUsage(context: CommandContext, status: VaultKeyStatus): void {
  if (status.usage.length === 0) context.out('no credential is stored');
  for (const { keyId, tokens } of status.usage) {
    const name = keyId ?? '(none: stored before key ids)';
    context.out(
      `${name}\t${tokens} credential${tokens === 1 ? '' : 's'}${keyId === status.activeId ? '\t(active)' : ''}`,
    );
  }
}

function describeRetirement(context: CommandContext, status: VaultKeyStatus): void {
  if (status.remaining > 0) {
    context.out(
      `${status.remaining} credential${status.remaining === 1 ? ' is' : 's are'} still under other keys than ${status.activeId}: keep those keys in the ring.`,
    );
  }
  for (const id of status.retirable) context.out(`key ${id} wraps nothing any more: it can be retired.`);
}

function openStore(context: CommandContext, keyRing: VaultKeyRing) {
  return openProxyStore({ databaseUrl: context.databaseUrl, keyRing, logger: context.logger });
}

const vaultStatus: Command = {
  name: 'vault status',
  usage: '',
  options: {},
  async run(context) {
    const keyRing = await context.vaultKeys();
    await using store = openStore(context, keyRing);
    const status = await store.keyStatus();
    context.out(`active key ${status.activeId}; ring ${keyRing.ids.join(', ')}`);
    describeUsage(context, status);
    describeRetirement(context, status);
  },
};

const vaultRotateKey: Command = {
  name: 'vault rotate-key',
  usage: '[--batch N]   (to the active key: VAULT_ACTIVE_KEY_ID, else the first of VAULT_KEYS)',
  options: { batch: { type: 'string' } },
  async run(context) {
    const batch = context.values.batch;
    if (batch !== undefined && (typeof batch !== 'string' || !/^[1-9]\d{0,4}$/.test(batch)))
      throw new CliError('--batch must be a whole number from 1 to 99999');
    await using store = openStore(context, await context.vaultKeys());
    const report = await store.rotateKey({ batchSize: batch === undefined ? 100 : Number(batch) });
    context.out(
      `rewrapped ${report.rewrapped} credential${report.rewrapped === 1 ? '' : 's'} under ${report.activeId}`,
    );
    describeUsage(context, report);
    describeRetirement(context, report);
    if (report.remaining === 0) context.out(`every credential is under ${report.activeId}.`);
  },
};

export const vaultCommands: readonly Command[] = [vaultStatus, vaultRotateKey];
