/**
 * `pag identity set --owner E [--name N] [--timezone Z] [--locale L] [--summary S]`: changes only
 * the fields given, as the dashboard does; an empty value clears an optional one (--summary "").
 * The time zone must be an IANA name (Europe/Berlin), the locale a BCP 47 tag (en-GB): checked by
 * the contracts' IdentitySet, a mistake is one line naming the option. Prints the identity.
 */
import { IdentitySet } from '@pag/contracts';
import type { Command, CommandContext } from '../command.ts';
import { CliError } from '../command.ts';
import { checkInput, stringOption, withOwnerBrain } from './owner-brain.ts';

const FIELDS = ['name', 'timezone', 'locale', 'summary'] as const;

/** The given options; "" is null (cleared) for the optional fields. */
function givenFields(context: CommandContext): Record<string, string | null> {
  const fields: Record<string, string | null> = {};
  for (const field of FIELDS) {
    const value = stringOption(context, field);
    if (value !== undefined) fields[field] = value === '' && field !== 'name' ? null : value;
  }
  return fields;
}

const identitySet: Command = {
  name: 'identity set',
  usage: '--owner E [--name N] [--timezone Z] [--locale L] [--summary S]',
  options: {
    owner: { type: 'string' },
    name: { type: 'string' },
    timezone: { type: 'string' },
    locale: { type: 'string' },
    summary: { type: 'string' },
  },
  async run(context) {
    const fields = givenFields(context);
    if (Object.keys(fields).length === 0)
      throw new CliError('give at least one of --name, --timezone, --locale, --summary');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const { accountId, ...change } = checkInput(
        IdentitySet,
        { accountId: owner.id, ...fields },
        Object.fromEntries(FIELDS.map((field) => [field, `--${field}`])),
      );
      const identity = await brain.stores.identities.update(accountId, change);
      // meet() stored a profile if there was none; nothing deletes one.
      if (identity === null) throw new Error(`the identity profile of ${owner.email} vanished`);
      for (const [field, value] of Object.entries(identity)) context.out(`${field}: ${value ?? '-'}`);
    });
  },
};

export const identityCommands: Command[] = [identitySet];
