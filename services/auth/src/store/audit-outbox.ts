/**
 * The audit outbox (docs/adr/0041): a decision's transaction inserts its audit event here
 * (recordDecision), so the decision and its event commit together or not at all, whoever took it
 * (the dashboard, or `pnpm pag …` while no stack runs). The running service relays rows to the
 * AUDIT stream and deletes each row only after the stream stored it (AuditOutbox.relay), so an
 * event is never lost; a relay that dies between the stream's ack and the delete publishes the
 * row again, with the same event id, which the stream and the audit service store once.
 *
 * Several replicas relay at once without doing the same work twice: each takes rows with
 * `FOR UPDATE SKIP LOCKED`, so a row locked by one replica's relay is skipped by the others.
 * Rows go out oldest first. A committed insert wakes the relays through NOTIFY `pag_auth_audit`
 * (a trigger of the table: prisma/migrations/…_audit_outbox).
 */
import type { ActionAuditEvent } from '@pag/contracts';
import type { Decision } from '../events/audit-decisions.ts';
import { decisionEvent } from '../events/audit-decisions.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** The channel the table's trigger notifies on commit. */
export const AUDIT_OUTBOX_CHANNEL = 'pag_auth_audit';

/** Rows one relay transaction takes at most. */
const BATCH = 100;

/** Writes the decision's audit event in the decision's transaction. */
export async function recordDecision(
  tx: Pick<Prisma.TransactionClient, 'auditOutbox'>,
  decision: Decision,
): Promise<void> {
  const event = decisionEvent(decision);
  await tx.auditOutbox.create({ data: { eventId: event.eventId, event } });
}

export interface RelayResult {
  /** Rows published and deleted. */
  sent: number;
  /** Why a publish failed; the rows not published stay for the next attempt. */
  failure?: unknown;
}

export class AuditOutbox {
  readonly #db: PrismaClient;

  constructor(db: PrismaClient) {
    this.#db = db;
  }

  /**
   * Publishes the waiting rows, a batch at a time (oldest first), until none is left or a publish
   * fails; each row is deleted in the transaction that locked it, once its publish resolved.
   */
  async relay(publish: (event: ActionAuditEvent) => Promise<unknown>): Promise<RelayResult> {
    let sent = 0;
    for (;;) {
      const batch = await this.#db.$transaction(
        async (tx) => {
          const rows = await tx.$queryRaw<{ event_id: string; event: ActionAuditEvent }[]>`
            SELECT event_id::text AS event_id, event FROM "auth"."audit_outbox"
             ORDER BY created_at, event_id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
          // Published together: each waits for its own ack (embedded: one group commit for all).
          const outcomes = await Promise.allSettled(rows.map((row) => publish(row.event)));
          const published = rows
            .filter((_, index) => outcomes[index]?.status === 'fulfilled')
            .map((row) => row.event_id);
          const refused = outcomes.find((outcome) => outcome.status === 'rejected');
          const failure = refused === undefined ? undefined : (refused.reason ?? new Error('publish failed'));
          if (published.length > 0)
            await tx.$executeRaw`DELETE FROM "auth"."audit_outbox" WHERE event_id = ANY(${published}::uuid[])`;
          return { taken: rows.length, published: published.length, failure };
        },
        // Publishing waits for the stream's acknowledgement (embedded: the audit row's commit).
        { timeout: 60_000 },
      );
      sent += batch.published;
      if (batch.failure !== undefined) return { sent, failure: batch.failure };
      if (batch.taken < BATCH) return { sent };
    }
  }

  /**
   * Writes an event of its own, for a decision whose change lives in another service (an owner's
   * edit of the brain on the dashboard): written once that service confirmed the change.
   */
  async record(decision: Decision): Promise<void> {
    await recordDecision(this.#db, decision);
  }

  /** The events waiting, oldest first (operators and tests). */
  async waiting(): Promise<ActionAuditEvent[]> {
    const rows = await this.#db.auditOutbox.findMany({ orderBy: [{ createdAt: 'asc' }, { eventId: 'asc' }] });
    return rows.map((row) => row.event as unknown as ActionAuditEvent);
  }
}
