/**
 * The stories' target as the README starts it: the embedded stack as a child process
 * (testkit's startStackProcess), `pag` run in this process against its DATA_DIR, its embedded
 * PostgreSQL read through DATA_DIR/stack.json.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../../../packages/stack/test/support/pag.ts';
import type { RunningTarget, StoryTarget } from './target.ts';
import { storyTarget } from './target.ts';

const TIMEOUTS = { startMs: 60_000, stopMs: 30_000 };

async function startProcessTarget(): Promise<RunningTarget> {
  const stack = await startStackProcess();
  const pag = pagCommand(() => stack.dataDir);
  try {
    const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
      databaseUrl: string;
    };
    return {
      url: stack.url,
      databaseUrl,
      pag: async (argv) => {
        const { code, out, err } = await pag(...argv);
        if (code !== 0)
          throw new Error(
            `pag ${argv.slice(0, 2).join(' ')} failed (${code}):\n${[...out, ...err].join('\n')}`,
          );
        return out;
      },
      stop: async () => {
        await stack.stop();
      },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** The embedded stack as a process, started before the file's stories and stopped after. */
export function processTarget(): StoryTarget {
  return storyTarget(startProcessTarget, TIMEOUTS);
}
