/**
 * A periodic purge: rows nobody may read any more are deleted every few minutes. Reads never
 * depend on it (what is due is filtered out anyway); it only keeps tables small. Each service
 * brings its own tasks.
 *
 * What it enforces: one run at a time (a slow run is not overlapped); a failing task is logged and
 * retried on the next run without stopping the others; the timer is unref'd, so it never keeps a
 * process alive; stop() clears it and waits for a run in progress.
 */
import type { Logger } from '../log/logger.ts';

export interface PurgeTask {
  name: string;
  /** Deletes what is due; resolves to the number of rows deleted. */
  run(): Promise<number>;
}

export interface PurgeJob {
  /** One run now (tests, start-up); the same run a timer tick does. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startPurgeJob(options: { intervalMs: number; tasks: PurgeTask[]; logger: Logger }): PurgeJob {
  let running: Promise<void> | undefined;
  const runOnce = (): Promise<void> => {
    running ??= (async () => {
      for (const task of options.tasks) {
        try {
          const deleted = await task.run();
          if (deleted > 0) options.logger.debug({ task: task.name, deleted }, 'purged expired rows');
        } catch (error) {
          options.logger.warn({ err: error, task: task.name }, 'purge failed; next run retries');
        }
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), options.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
