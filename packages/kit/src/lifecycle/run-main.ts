/**
 * The frame of every entry point: a configuration error is one clear message and exit code 2;
 * any other start-up failure is reported without a stack trace unless LOG_LEVEL asks for it.
 */
import { ConfigError } from '../config/parse-config.ts';

export async function runMain(name: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(2);
    }
    const detail =
      process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace'
        ? String((error as Error)?.stack ?? error)
        : String((error as Error)?.message ?? error);
    process.stderr.write(`${name}: failed to start: ${detail}\n`);
    process.exit(1);
  }
}
