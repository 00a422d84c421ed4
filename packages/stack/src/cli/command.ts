/**
 * The shape of one `pag` command.
 */
import type { ParseArgsOptionsConfig } from 'node:util';
import type { Env, Logger } from '@pag/kit';

export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  databaseUrl: string;
  dataDir: string;
  env: Env;
  out: (text: string) => void;
  logger: Logger;
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
