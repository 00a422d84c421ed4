/**
 * The command table of `pag` and its frame: parse, find the database, run, report.
 */
import { parseArgs } from 'node:util';
import { openAuthStore } from '@pag/auth';
import { AppError } from '@pag/contracts';
import type { Env } from '@pag/kit';
import { ConfigError, createLogger } from '@pag/kit';
import { loadVaultKeyRing } from '@pag/proxy';
import { embeddedAuthConfig } from '../auth-config.ts';
import { loadStackConfig } from '../config.ts';
import { migrateAll } from '../databases.ts';
import { embeddedVaultKey, loadStackSecrets } from '../secrets.ts';
import { openStackDatabase } from '../stack-database.ts';
import type { Command } from './command.ts';
import { CliError } from './command.ts';
import { COMMANDS } from './commands/mod.ts';

function usage(): string {
  const lines = COMMANDS.map((command) => `  pag ${command.name} ${command.usage}`);
  return `usage:\n${lines.join('\n')}`;
}

function findCommand(argv: string[]): { command: Command; rest: string[] } {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word))
      return { command, rest: argv.slice(words.length) };
  }
  throw new CliError(`unknown command "${argv.slice(0, 2).join(' ')}"\n${usage()}`);
}

export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Standard input, whole; tests give their own. */
  input?: () => Promise<string>;
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const STANDARD_OUTPUT: CliOutput = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

export async function runCli(argv: string[], env: Env, output: CliOutput = STANDARD_OUTPUT): Promise<number> {
  const { out } = output;
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
      out(usage());
      return argv.length === 0 ? 2 : 0;
    }
    const { command, rest } = findCommand(argv);
    let values: Record<string, string | boolean | undefined>;
    try {
      // No option is declared `multiple`, so every value is a string or a boolean.
      values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false })
        .values as Record<string, string | boolean | undefined>;
    } catch (error) {
      throw new CliError(`${(error as Error).message}\nusage: pag ${command.name} ${command.usage}`);
    }
    const config = loadStackConfig(env);
    const logger = createLogger({ service: 'pag', level: env.LOG_LEVEL ?? 'warn' });
    const database = await openStackDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      logger,
    });
    let code: number;
    try {
      // A command may be the first thing run on a DATA_DIR: the tables exist before it looks.
      await migrateAll(database.url, logger);
      const publicUrl = database.runningPublicUrl ?? config.publicUrl ?? `http://localhost:${config.port}`;
      const databaseUrl = database.url;
      const openAuth = async () =>
        openAuthStore({
          config: embeddedAuthConfig(env, await loadStackSecrets(config.dataDir), {
            publicUrl,
            databaseUrl,
            opsPort: 0,
          }),
          publicUrl,
          logger,
        });
      code =
        (await command.run({
          values,
          databaseUrl,
          dataDir: config.dataDir,
          publicUrl,
          env,
          out,
          logger,
          openAuth,
          vaultKeys: async () =>
            loadVaultKeyRing({
              VAULT_ENCRYPTION_KEY: embeddedVaultKey(await loadStackSecrets(config.dataDir)),
              ...env,
            }),
          readInput: output.input ?? readStandardInput,
        })) ?? 0;
    } finally {
      await database.close();
    }
    return code;
  } catch (error) {
    // The operator's mistakes (bad options, config, or input a store refused) are exit code 2.
    const mistake =
      error instanceof CliError ||
      error instanceof ConfigError ||
      (error instanceof AppError && error.expose);
    output.err(`pag: ${mistake ? (error as Error).message : `failed: ${(error as Error).message}`}`);
    return mistake ? 2 : 1;
  }
}
