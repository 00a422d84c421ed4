/**
 * The whole gateway in one process, run by `scripts/start` (which execs Node on this file; `pnpm
 * start` runs that script). Prints `ready: <PUBLIC_URL>` once it serves.
 */
import { runMain } from '@pag/kit';
import { startStack } from '../start-stack.ts';

await runMain('scripts/start', async () => {
  const stack = await startStack(process.env);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    stack.logger.info({ signal }, 'stopping');
    stack.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(`ready: ${stack.publicUrl}\n`);
});
