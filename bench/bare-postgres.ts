/**
 * The memory baseline: a bare Node process holding an embedded PostgreSQL started the way the
 * stack starts it (kit's startEmbeddedPostgres), and nothing else. Usage:
 * node bench/bare-postgres.ts <data dir>. Prints `ready: <postgres URL>`; SIGTERM stops both.
 */
import { startEmbeddedPostgres } from '../packages/kit/src/mod.ts';

const postgres = await startEmbeddedPostgres({ dataDir: process.argv[2] as string });
process.stdout.write(`ready: ${postgres.url}\n`);
process.once('SIGTERM', () => {
  postgres.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
