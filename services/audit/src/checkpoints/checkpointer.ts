/**
 * Writes a signed checkpoint of the log's head every interval when the head moved since the
 * newest checkpoint (read from the table, so replicas do not repeat each other), and once more
 * on close(), after the ingest stopped: a graceful stop leaves the tail covered.
 *
 * What it enforces: one checkpoint at a time (a slow write is not overlapped); a failure is
 * logged and the next tick tries again; the timer is unref'd; close() stops the timer, waits for
 * a tick in progress, then writes the last one.
 */
import type { Logger } from '@pag/kit';
import type { ChainHead } from '../store/chain-head.ts';
import type { CheckpointStore } from '../store/checkpoint-store.ts';
import type { Checkpoint } from './checkpoint-signature.ts';
import { signCheckpoint } from './checkpoint-signature.ts';
import type { SigningKey } from './signing-keys.ts';

export interface CheckpointerOptions {
  head: () => Promise<ChainHead>;
  checkpoints: CheckpointStore;
  key: SigningKey;
  intervalMs: number;
  logger: Logger;
  /** Defaults to the system clock. */
  now?: () => Date;
}

export interface Checkpointer {
  /** A checkpoint of the head now, if the head moved; the one written, or null. */
  runOnce(): Promise<Checkpoint | null>;
  close(): Promise<void>;
}

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const now = options.now ?? (() => new Date());
  let running: Promise<Checkpoint | null> | undefined;
  const write = async (): Promise<Checkpoint | null> => {
    const head = await options.head();
    if (head.seq === 0) return null;
    const newest = await options.checkpoints.newest();
    if (newest !== null && newest.seq >= head.seq) return null;
    const checkpoint = signCheckpoint(options.key, head, now());
    return (await options.checkpoints.add(checkpoint)) ? checkpoint : null;
  };
  const runOnce = (): Promise<Checkpoint | null> => {
    running ??= write().finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = () =>
    runOnce().catch((error: unknown) =>
      options.logger.warn({ err: error }, 'audit checkpoint failed; next tick retries'),
    );
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  let closing: Promise<void> | undefined;
  return {
    runOnce,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await running?.catch(() => undefined);
        try {
          const last = await runOnce();
          if (last !== null) options.logger.info({ seq: last.seq }, 'audit checkpoint written on close');
        } catch (error) {
          options.logger.error(
            { err: error },
            'audit checkpoint on close failed; the tail after the last one is unsigned',
          );
        }
      })();
      return closing;
    },
  };
}
