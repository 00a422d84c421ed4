/**
 * Whether an event can be stored as it is: it matches the contracts' AuditEvent, and none of its
 * text is text PostgreSQL refuses or alters (a NUL character, an unpaired surrogate), which would
 * fail the whole batch's INSERT and, on the stream, block every event behind it. The same holds
 * for a latency NUMERIC(12,3) cannot hold (a billion milliseconds: eleven days).
 */
import { AuditEvent, findUnstorableText } from '@pag/contracts';
import { storedLatency } from './record-content.ts';

/** NUMERIC(12,3): nine digits before the point. */
const LATENCY_LIMIT_MS = 1_000_000_000;

declare const storable: unique symbol;

/** An event checkAuditEvent passed: the writer stores it without checking it again. */
export type StorableEvent = AuditEvent & { readonly [storable]: true };

export type EventCheck = { ok: true; event: StorableEvent } | { ok: false; problem: string };

export function checkAuditEvent(input: unknown): EventCheck {
  const parsed = AuditEvent.safeParse(input);
  if (!parsed.success) {
    const problem = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(event)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, problem };
  }
  const latency = storedLatency(parsed.data.latencyMs);
  if (latency !== null && latency >= LATENCY_LIMIT_MS)
    return { ok: false, problem: `latencyMs: must be below ${LATENCY_LIMIT_MS}` };
  const unstorable = findUnstorableText(parsed.data);
  if (unstorable !== null) return { ok: false, problem: `${unstorable.path}: ${unstorable.reason}` };
  return { ok: true, event: parsed.data as StorableEvent };
}
