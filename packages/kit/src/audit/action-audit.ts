/**
 * Action audit events (contracts' ActionAuditEvent): what a service did on the owner's behalf, or
 * a decision of the owner or the operator. The one way to make one and the one way to send one,
 * so no service hand-builds an event:
 * - actionAuditEvent fills in the event id (the stream's deduplication id) and the time, and
 *   validates the whole event with the contract's schema: a field the audit service would refuse
 *   (a detail too long, an action not `<resource>.<verb>`) fails here, at the emitter, not later;
 * - publishAuditEvent validates again (an event kept in an outbox may have waited across a
 *   deploy) and publishes it durably on the source's subject of the AUDIT stream with its event
 *   id as msgId, so a retried publish is stored once.
 */
import { randomUUID } from 'node:crypto';
import type { AuditSource } from '@pag/contracts';
import { ActionAuditEvent, auditSubject } from '@pag/contracts';
import type { Bus, DurablePublishAck } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';

/** What an emitter says; the kind, event id and (unless given) time are filled in. */
export type ActionAuditInput = Omit<ActionAuditEvent, 'kind' | 'eventId' | 'source' | 'time'> & {
  /** When it happened; default now. */
  time?: Date;
};

/** A validated action event of `source` (throws the schema's error on a field the log would refuse). */
export function actionAuditEvent(source: AuditSource, input: ActionAuditInput): ActionAuditEvent {
  const { time, ...fields } = input;
  return ActionAuditEvent.parse({
    kind: 'action',
    eventId: randomUUID(),
    source,
    time: (time ?? new Date()).toISOString(),
    ...fields,
  });
}

/**
 * How long an action event's publish waits for the stream before it fails: nobody's answer waits
 * for it (the gateway's request event gates the answer), so this only bounds a caller's retry and
 * a shutdown that waits for publishes under way.
 */
export const AUDIT_PUBLISH_TIMEOUT_MS = 10_000;

/** Resolves once the AUDIT stream stored the event (or had it already: same event id). */
export async function publishAuditEvent(bus: Bus, event: ActionAuditEvent): Promise<DurablePublishAck> {
  const checked = ActionAuditEvent.parse(event);
  return bus.publishDurable(auditSubject(checked.source), checked, {
    msgId: checked.eventId,
    timeoutMs: AUDIT_PUBLISH_TIMEOUT_MS,
  });
}

/**
 * Action events sent without holding anyone's answer (the gateway's request event of the same
 * request already gates it): each `record` builds and publishes one event and never throws; a
 * failed build or publish is logged with `log`'s fields. close() waits for the publishes still
 * under way, so a clean shutdown loses none.
 */
export interface ActionAuditPublisher {
  record(input: ActionAuditInput, log: Record<string, unknown>): void;
  close(): Promise<void>;
}

export function actionAuditPublisher(source: AuditSource, bus: Bus, logger: Logger): ActionAuditPublisher {
  const pending = new Set<Promise<unknown>>();
  return {
    record(input, log) {
      let publishing: Promise<unknown>;
      try {
        publishing = publishAuditEvent(bus, actionAuditEvent(source, input));
      } catch (error) {
        publishing = Promise.reject(error);
      }
      const settled = publishing.catch((error: unknown) => {
        logger.error({ err: error, ...log }, `${input.action} audit event not published`);
      });
      pending.add(settled);
      void settled.finally(() => pending.delete(settled));
    },
    async close() {
      await Promise.all(pending);
    },
  };
}
