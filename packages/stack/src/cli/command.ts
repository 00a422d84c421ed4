/**
 * The shape of one `pag` command.
 */
import type { ParseArgsOptionsConfig } from 'node:util';
import type { AuthStore } from '@pag/auth';
import type { Env, Logger } from '@pag/kit';
import type { VaultKeyRing } from '@pag/proxy';

export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  databaseUrl: string;
  dataDir: string;
  /** The deployment's PUBLIC_URL (the running stack's, else PUBLIC_URL, else the default). */
  publicUrl: string;
  env: Env;
  out: (text: string) => void;
  logger: Logger;
  /** The auth service's core on the stack's data; dispose it (`await using`). */
  openAuth(): Promise<AuthStore>;
  /**
   * The proxy's vault key ring: VAULT_KEYS / VAULT_ACTIVE_KEY_ID when set, with
   * VAULT_ENCRYPTION_KEY when set (a deployment's own), else the embedded stack's, derived from
   * DATA_DIR/secrets.json as the running stack derives it.
   */
  vaultKeys(): Promise<VaultKeyRing>;
  /** Standard input, whole (secrets are read from it, never from the command line). */
  readInput(): Promise<string>;
}

export interface Command {
  /** One or two words, e.g. "owner create". */
  name: string;
  usage: string;
  options: ParseArgsOptionsConfig;
  /**
   * Resolves with the exit code when the command finished but its outcome is a failure it has
   * already printed (`pag audit verify` on a broken chain: 1); nothing means 0.
   */
  run(context: CommandContext): Promise<number | undefined>;
}

/** A mistake of the operator's: printed as one line, exit code 2. */
export class CliError extends Error {
  override name = 'CliError';
}

export function requireString(context: CommandContext, name: string): string {
  const value = context.values[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`--${name} is required`);
  return value;
}

/** A whole number option (--daily, --monthly); its range is AgentStore's to check (and to word). */
export function limitOption(context: CommandContext, name: 'daily' | 'monthly'): number | null {
  const value = context.values[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new CliError(`--${name} must be a whole number`);
  return Number(value);
}

/** --scopes "s1 s2" as a list; undefined when the option is absent. */
export function scopesOption(context: CommandContext): string[] | undefined {
  const value = context.values.scopes;
  return typeof value === 'string' ? value.split(/\s+/).filter((scope) => scope !== '') : undefined;
}
