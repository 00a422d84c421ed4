/**
 * The one way a test waits for a state that announces nothing (a client's isReady(), a row
 * written after the answer): it checks again every `intervalMs` until the check passes, and
 * after `timeoutMs` fails with what it waited for and the last failure seen. Anything that emits
 * an event (a message, a callback, a promise) is awaited instead.
 *
 * A check passes when it returns anything but `false` (an assertion that did not throw, a
 * condition that holds, or a value, which eventually() resolves to); it fails when it throws or
 * returns `false`.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** What is waited for, in the failure: "the bus notices the server is gone". */
  what: string;
  /** How long to keep checking; 5 s unless given. */
  timeoutMs?: number;
  /** The pause between two checks; 10 ms unless given. */
  intervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_INTERVAL_MS = 10;

export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions,
): Promise<Exclude<T, false>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs;
  let checks = 0;
  for (;;) {
    checks += 1;
    let failure: unknown;
    try {
      const result = await check();
      if (result !== false) return result as Exclude<T, false>;
      failure = new Error('the condition was still false');
    } catch (error) {
      failure = error;
    }
    if (performance.now() >= deadline) {
      const last = failure instanceof Error ? failure.message : String(failure);
      throw new Error(
        `timed out after ${timeoutMs} ms (${checks} checks) waiting until ${options.what}; last failure: ${last}`,
        { cause: failure },
      );
    }
    await sleep(options.intervalMs ?? DEFAULT_INTERVAL_MS);
  }
}
