/**
 * Liveness and readiness. Liveness says the process runs; readiness says it should get traffic:
 * every registered check passes and shutdown has not begun (so a load balancer drains it first).
 */

export type ReadinessCheck = () => Promise<void> | void;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | string>;
}

export class Health {
  readonly #checks = new Map<string, ReadinessCheck>();
  #shuttingDown = false;

  /** A check throws (or rejects) when its dependency is not usable; the message is reported. */
  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
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
    if (this.#shuttingDown) checks.shutdown = 'shutting down';
    return { ready: Object.values(checks).every((value) => value === 'ok'), checks };
  }
}
