/**
 * `pag keys rotate`: a new signing key; the current ones retire and keep verifying for a week.
 * The key-encryption key is KEY_ENCRYPTION_KEY when set (services deployed on their own), else
 * the embedded stack's, from DATA_DIR/secrets.json.
 */
import { openAuthStore } from '@pag/auth';
import { loadStackSecrets } from '../../secrets.ts';
import type { Command, CommandContext } from '../command.ts';
import { CliError } from '../command.ts';

async function keyEncryptionKey(context: CommandContext): Promise<Buffer> {
  const configured = context.env.KEY_ENCRYPTION_KEY;
  const key = Buffer.from(configured ?? (await loadStackSecrets(context.dataDir)).keyEncryptionKey, 'base64');
  if (key.length !== 32) throw new CliError('KEY_ENCRYPTION_KEY must be the base64 of exactly 32 bytes');
  return key;
}

export const keysRotate: Command = {
  name: 'keys rotate',
  usage: '',
  options: {},
  async run(context) {
    const key = await keyEncryptionKey(context);
    await using store = await openAuthStore({ databaseUrl: context.databaseUrl, logger: context.logger });
    const { kid, retired } = await store.rotateSigningKeys(key);
    context.out(
      `new signing key ${kid}; retired ${retired.join(', ') || 'none'} (still verifying for 7 days).`,
    );
    context.out('Restart the stack (or each auth replica) to sign with the new key.');
  },
};
