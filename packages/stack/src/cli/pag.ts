/**
 * `pnpm pag …`: operator commands against the same data as a running stack (same DATA_DIR or
 * DATABASE_URL). Errors are one clear line on stderr and a non-zero exit.
 */
import { runCli } from './run-cli.ts';

process.exitCode = await runCli(process.argv.slice(2), process.env);
