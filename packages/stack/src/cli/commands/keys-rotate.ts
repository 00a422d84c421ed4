/**
 * `pag keys rotate`: a new signing key; the current ones retire and keep verifying for a week.
 * The key-encryption key is KEY_ENCRYPTION_KEY when set (services deployed on their own), else
 * the embedded stack's, from DATA_DIR/secrets.json.
 */
import type { Command } from '../command.ts';

export const keysRotate: Command = {
  name: 'keys rotate',
  usage: '',
  options: {},
  async run(context) {
    await using store = await context.openAuth();
    const { kid, retired } = await store.rotateSigningKeys();
    context.out(
      `new signing key ${kid}; retired ${retired.join(', ') || 'none'} (still verifying for 7 days).`,
    );
    context.out('Restart the stack (or each auth replica) to sign with the new key.');
  },
};
