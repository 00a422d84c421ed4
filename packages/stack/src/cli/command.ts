/**
 * The shape of one `pag` command.
 */
import type { ParseArgsOptionsConfig } from 'node:util';
import type { AuthStore } from '@pag/auth';
import type { Env, Logger } from '@pag/kit';

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
}

export interface Command {
  /** One or two words, e.g. "owner create". */
  name: string;
  usage: string;
  options: ParseArgsOptionsConfig;
  run(context: CommandContext): Promise<void>;
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
