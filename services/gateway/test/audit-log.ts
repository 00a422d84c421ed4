/**
 * Reads the AUDIT stream the way the audit service will: a durable consumer of its own (every
 * event from the first, in stream order), each event checked against the contracts' schema. The
 * gateway's request events are kept; the other services' action events (the auth service's
 * decisions, the proxy's calls) are checked and passed over.
 * Tests wait for what they expect to arrive, never for a fixed time.
 */
import { randomUUID } from 'node:crypto';
import type { RequestAuditEvent } from '@pag/contracts';
import { AuditEvent, AuditStream } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';

export interface StoredAuditEvent {
  /** The event's sequence number in the stream. */
  seq: number;
  event: RequestAuditEvent;
}

export class AuditLog implements AsyncDisposable {
  readonly stored: StoredAuditEvent[] = [];
  readonly #waiters = new Set<() => void>();
  #subscription: Subscription | undefined;

  static async follow(bus: Bus): Promise<AuditLog> {
    const log = new AuditLog();
    log.#subscription = await bus.consume(AuditStream.name, `audit-test-${randomUUID()}`, async (msg) => {
      const event = AuditEvent.parse(msg.data);
      if (event.kind !== 'request') return;
      log.stored.push({ seq: msg.seq, event });
      for (const wake of log.#waiters) wake();
    });
    return log;
  }

  get events(): RequestAuditEvent[] {
    return this.stored.map(({ event }) => event);
  }

  /** The events of one request, once at least one has arrived. */
  async of(requestId: string, timeoutMs = 5_000): Promise<RequestAuditEvent[]> {
    const mine = () => this.events.filter((event) => event.requestId === requestId);
    await this.until(() => mine().length > 0, timeoutMs, `no audit event of request ${requestId}`);
    return mine();
  }

  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (done()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`${what} within ${timeoutMs} ms (${this.stored.length} events read)`));
      }, timeoutMs);
      const wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#subscription?.close();
  }
}
