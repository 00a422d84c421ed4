/**
 * The read side of the audit log: a stored row (an AuditEvent with its place in the hash chain)
 * and the owner's query over their own rows (the dashboard's /dashboard/audit, its NDJSON export
 * and `pag audit list`). Rows are paged by sequence number, newest first.
 */
import { z } from 'zod';
import { TOKEN_KINDS } from './auth.ts';
import { Timestamp } from './common.ts';
import { AUDIT_ACTOR_TYPES, AUDIT_DECISIONS, AUDIT_EVENT_SOURCES, AuditDetail } from './events.ts';

/** One row of the log, flat: a request event leaves the action fields null, and the reverse. */
export const AuditRecord = z.object({
  seq: z.int().min(1).describe('Gap-free position in the whole log, in commit order.'),
  eventId: z.uuid(),
  kind: z.enum(['request', 'action']),
  source: z.enum(AUDIT_EVENT_SOURCES),
  requestId: z.string(),
  time: Timestamp.describe('When it happened (the event time).'),
  recordedAt: Timestamp.describe('When the audit service committed it.'),
  accountId: z.string().nullable(),
  clientId: z.string().nullable(),
  agentId: z.string().nullable(),
  tokenKind: z.enum(TOKEN_KINDS).nullable(),
  actorType: z.enum(AUDIT_ACTOR_TYPES).nullable(),
  actorId: z.string().nullable(),
  action: z.string().describe('`http.request` for a request event.'),
  target: z.string().nullable(),
  clientAddress: z.string().nullable(),
  method: z.string().nullable(),
  path: z.string().nullable(),
  status: z.int().nullable(),
  decision: z.enum(AUDIT_DECISIONS),
  reason: z.string().nullable(),
  latencyMs: z.number().nullable(),
  bytesIn: z.int().nullable(),
  bytesOut: z.int().nullable(),
  detail: AuditDetail,
  hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('SHA-256 of the previous hash and this row (hex).'),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

/** HTTP status classes a filter may name instead of one status. */
export const AUDIT_STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

export const AUDIT_PAGE_MAX = 200;

/** One owner's rows, filtered; `before` pages (rows with a smaller sequence number). */
export const AuditQuery = z.object({
  accountId: z.uuid(),
  agentId: z.string().min(1).max(200).optional(),
  status: z.union([z.int().min(100).max(599), z.enum(AUDIT_STATUS_CLASSES)]).optional(),
  decision: z.enum(AUDIT_DECISIONS).optional(),
  pathPrefix: z.string().min(1).max(500).startsWith('/').optional(),
  since: Timestamp.optional(),
  until: Timestamp.optional(),
  before: z.int().min(1).optional().describe('Only rows with a smaller sequence number (the next page).'),
  limit: z.int().min(1).max(AUDIT_PAGE_MAX).default(50),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditPage = z.object({
  records: z.array(AuditRecord).describe('Newest first.'),
  nextBefore: z.int().nullable().describe('Pass as `before` for the next page; null on the last.'),
});
export type AuditPage = z.infer<typeof AuditPage>;
