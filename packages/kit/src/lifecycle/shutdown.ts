/**
 * Graceful shutdown: resources register a closer as they start; on SIGTERM or SIGINT the closers
 * run in reverse order (the HTTP listener stops before the bus drains, the bus before the
 * database), bounded by a deadline. A second signal exits at once.
 */
import type { Logger } from 'pino';

export type Closer = () => Promise<void> | void;

export class Shutdown {
  readonly #closers: { name: string; close: Closer }[] = [];
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #running: Promise<void> | undefined;

  constructor(logger: Logger, timeoutMs = 8_000) {
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  /** Registers a closer; closers run last-registered first. */
  add(name: string, close: Closer): void {
    this.#closers.push({ name, close });
  }

  /** Runs every closer once; concurrent calls share the same run. Closers past the deadline are abandoned. */
  run(reason: string): Promise<void> {
    this.#running ??= this.#closeAll(reason);
    return this.#running;
  }

  async #closeAll(reason: string): Promise<void> {
    this.#logger.info({ reason }, 'shutting down');
    const deadline = Date.now() + this.#timeoutMs;
    for (const { name, close } of [...this.#closers].reverse()) {
      const left = deadline - Date.now();
      try {
        await withDeadline(Promise.resolve().then(close), Math.max(left, 0), name);
      } catch (error) {
        this.#logger.error({ err: error, closer: name }, 'closer failed');
      }
    }
    this.#logger.info('shut down');
  }

  /** SIGTERM/SIGINT run the closers and exit; a second signal exits immediately. */
  installSignalHandlers(exit: (code: number) => void = process.exit): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        this.#logger.warn({ signal }, 'second signal, exiting now');
        exit(1);
        return;
      }
      signalled = true;
      this.run(signal).then(
        () => exit(0),
        () => exit(1),
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
}

function withDeadline<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not close within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
