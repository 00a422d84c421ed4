/**
 * Whether an event can be stored as it is: it matches the contracts' AuditEvent, and none of its
 * text is text PostgreSQL refuses or alters (a NUL character, an unpaired surrogate), which would
 * fail the whole batch's INSERT and, on the stream, block every event behind it.
 */
import { AuditEvent, findUnstorableText } from '@pag/contracts';

export type EventCheck = { ok: true; event: AuditEvent } | { ok: false; problem: string };

export function checkAuditEvent(input: unknown): EventCheck {
  const parsed = AuditEvent.safeParse(input);
  if (!parsed.success) {
    const problem = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(event)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, problem };
  }
  const unstorable = findUnstorableText(parsed.data);
  if (unstorable !== null) return { ok: false, problem: `${unstorable.path}: ${unstorable.reason}` };
  return { ok: true, event: parsed.data };
}
