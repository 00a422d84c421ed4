/**
 * Which PostgreSQL the stack's data lives in, for operator commands: DATABASE_URL when set;
 * else the embedded one of DATA_DIR, reached through the running stack (stack.json) or, when
 * no stack runs, started here for the duration of the command.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@pag/kit';
import { startEmbeddedPostgres } from '@pag/kit';

export interface StackDatabase {
  readonly url: string;
  close(): Promise<void>;
}

interface StackFile {
  pid: number;
  databaseUrl: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function openStackDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
}): Promise<StackDatabase> {
  if (options.databaseUrl !== undefined) return { url: options.databaseUrl, close: async () => {} };
  const running = await readStackFile(options.dataDir);
  if (running !== null && isAlive(running.pid)) return { url: running.databaseUrl, close: async () => {} };
  const postgres = await startEmbeddedPostgres({
    dataDir: join(options.dataDir, 'postgres'),
    logger: options.logger,
  });
  return { url: postgres.url, close: () => postgres.stop() };
}

async function readStackFile(dataDir: string): Promise<StackFile | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
  } catch {
    return null;
  }
}
