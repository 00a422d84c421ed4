/**
 * Which PostgreSQL the stack's data lives in, for operator commands: DATABASE_URL when set;
 * else the embedded one of DATA_DIR, reached through the running stack (stack.json) or, when
 * no stack runs, started here for the duration of the command.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@pag/kit';
import { isProcessAlive, startEmbeddedPostgres } from '@pag/kit';

export interface StackDatabase {
  readonly url: string;
  /** The running stack's PUBLIC_URL, when a stack runs on this DATA_DIR. */
  readonly runningPublicUrl: string | undefined;
  close(): Promise<void>;
}

interface StackFile {
  pid: number;
  databaseUrl: string;
  publicUrl?: string;
}

export async function openStackDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
}): Promise<StackDatabase> {
  const running = await readStackFile(options.dataDir);
  const live = running !== null && isProcessAlive(running.pid) ? running : null;
  const runningPublicUrl = live?.publicUrl;
  if (options.databaseUrl !== undefined)
    return { url: options.databaseUrl, runningPublicUrl, close: async () => {} };
  if (live !== null) return { url: live.databaseUrl, runningPublicUrl, close: async () => {} };
  const postgres = await startEmbeddedPostgres({
    dataDir: join(options.dataDir, 'postgres'),
    logger: options.logger,
  });
  return { url: postgres.url, runningPublicUrl: undefined, close: () => postgres.stop() };
}

async function readStackFile(dataDir: string): Promise<StackFile | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
  } catch {
    return null;
  }
}
