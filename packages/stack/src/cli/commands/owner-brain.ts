/**
 * What `pag persona|knowledge|identity` share: the owner named by email (--owner, looked up in
 * the auth service's store: the tenancy boundary), the brain's stores on the stack's database
 * (@pag/brain's openBrain), met as the brain service meets an account on its first read (the
 * default persona, the identity), and input checked by the contracts' own schemas.
 */
import type { AuthStore } from '@pag/auth';
import type { OpenBrain } from '@pag/brain';
import { openBrain } from '@pag/brain';
import type { z } from 'zod';
import type { CommandContext } from '../command.ts';
import { CliError } from '../command.ts';
import { ownerAccount } from './agent.ts';

export interface OwnerBrain {
  owner: { id: string; email: string };
  brain: OpenBrain;
  /** The auth service's store (the owner's agents). */
  auth: AuthStore;
}

/** Runs `work` on the owner's brain data; the database client is closed afterwards. */
export async function withOwnerBrain<T>(
  context: CommandContext,
  work: (owner: OwnerBrain) => Promise<T>,
): Promise<T> {
  await using auth = await context.openAuth();
  const owner = await ownerAccount(auth, context);
  await using brain = openBrain({ databaseUrl: context.databaseUrl, logger: context.logger });
  await brain.meet(owner);
  // Awaited here, not returned: `await using` closes both clients when this function returns.
  return await work({ owner: { id: owner.id, email: owner.email }, brain, auth });
}

/**
 * `input` checked by a contracts schema (the one the brain's endpoint checks); what it refuses is
 * one line naming the fields, as options where there is one (`--timezone: …`).
 */
export function checkInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  optionOf: Record<string, string> = {},
): z.output<S> {
  const checked = schema.safeParse(input);
  if (checked.success) return checked.data;
  throw new CliError(
    checked.error.issues
      .map((issue) => {
        const field = issue.path.join('.');
        return `${optionOf[field] ?? field}: ${issue.message}`;
      })
      .join('; '),
  );
}

/** A string option, or undefined when absent. */
export function stringOption(context: CommandContext, name: string): string | undefined {
  const value = context.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Standard input, required non-empty (what `what` names is read from it). */
export async function requiredInput(context: CommandContext, what: string): Promise<string> {
  const text = await context.readInput();
  if (text.trim() === '') throw new CliError(`${what} is read from standard input, which was empty`);
  return text;
}
