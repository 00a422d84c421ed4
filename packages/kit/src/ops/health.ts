/**
 * Liveness and readiness. Liveness says the process runs; readiness says it should get traffic:
 * its services have started (the ops listener answers from the first moment, while the services
 * behind it still build their apps and subscribe), every registered check passes, and shutdown has
 * not begun (so a load balancer drains it first).
 */

export type ReadinessCheck = () => Promise<void> | void;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | string>;
}

export class Health {
  readonly #checks = new Map<string, ReadinessCheck>();
  #started = false;
  #shuttingDown = false;

  /** A check throws (or rejects) when its dependency is not usable; the message is reported. */
  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** Every service of the process serves now: until this, readiness reports `start: 'starting'`. */
  markStarted(): void {
    this.#started = true;
  }

  markShuttingDown(): void {
    this.#shuttingDown = true;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  async readiness(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.#checks].map(async ([name, check]): Promise<[string, string]> => {
        try {
          await check();
          return [name, 'ok'];
        } catch (error) {
          return [name, error instanceof Error ? error.message : String(error)];
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    if (!this.#started) checks.start = 'starting';
    if (this.#shuttingDown) checks.shutdown = 'shutting down';
    return { ready: Object.values(checks).every((value) => value === 'ok'), checks };
  }
}
