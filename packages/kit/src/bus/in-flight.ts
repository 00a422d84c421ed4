/**
 * Tracks handler promises still running, so close() can stop delivery first and then wait for
 * the work already started, as a graceful shutdown requires.
 */
export class InFlight {
  readonly #running = new Set<Promise<unknown>>();

  /** Runs `work` and remembers it until it settles; returns the work's own promise. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const promise = (async () => work())();
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return promise;
  }

  /** Resolves once nothing runs, including work started while waiting. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }
}
