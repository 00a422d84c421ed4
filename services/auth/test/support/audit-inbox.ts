/** For the tests: the action events the AUDIT stream of a bus delivers, and a wait for one. */
import { randomUUID } from 'node:crypto';
import type { ActionAuditEvent } from '@pag/contracts';
import { ActionAuditEvent as ActionAuditEventSchema, AuditStream } from '@pag/contracts';
import type { Bus } from '@pag/kit';

const AUDIT = { name: AuditStream.name, subjects: [...AuditStream.subjects] };

/** The action events a bus's AUDIT stream delivers, and a wait for one by action. */
export async function auditInbox(bus: Bus) {
  const events: ActionAuditEvent[] = [];
  const waiters: {
    match: (event: ActionAuditEvent) => boolean;
    resolve: (event: ActionAuditEvent) => void;
  }[] = [];
  await bus.ensureStream(AUDIT);
  await bus.consume<unknown>(AuditStream.name, `test-${randomUUID()}`, async (message) => {
    const event = ActionAuditEventSchema.parse(message.data);
    events.push(event);
    for (const waiter of waiters.filter((item) => item.match(event))) waiter.resolve(event);
  });
  return {
    events,
    /** The first event of this action (and, if given, matching `match`). */
    next(
      action: string,
      match: (event: ActionAuditEvent) => boolean = () => true,
    ): Promise<ActionAuditEvent> {
      const wanted = (event: ActionAuditEvent) => event.action === action && match(event);
      const seen = events.find(wanted);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match: wanted, resolve }));
    },
  };
}
