/**
 * `pag owner create --email E --password P [--plan free|pro|heavy]`: an owner account, as the
 * sign-up page makes one.
 */

import { byOperator } from '@pag/auth';
import { PLANS } from '@pag/contracts';
import type { Command } from '../command.ts';
import { CliError, requireString } from '../command.ts';

export const ownerCreate: Command = {
  name: 'owner create',
  usage: '--email E --password P [--plan free|pro|heavy]',
  options: { email: { type: 'string' }, password: { type: 'string' }, plan: { type: 'string' } },
  async run(context) {
    const email = requireString(context, 'email');
    const password = requireString(context, 'password');
    const plan = context.values.plan ?? 'free';
    if (typeof plan !== 'string' || !(PLANS as readonly string[]).includes(plan)) {
      throw new CliError(`--plan must be one of ${PLANS.join(', ')}`);
    }
    await using store = await context.openAuth();
    const account = await store.accounts.create(
      { email, password, plan: plan as (typeof PLANS)[number] },
      byOperator(),
    );
    context.out(`created owner ${account.email} (${account.plan}), id ${account.id}`);
  },
};
