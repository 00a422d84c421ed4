/**
 * audit.records.list: one page of one owner's rows, newest first, for the auth service's
 * /dashboard/audit and its NDJSON export. Only the auth service may ask (the endpoint's `from`,
 * enforced by the NATS permissions); it names the signed-in owner's account, and the query never
 * reads another (store/record-query.ts). A malformed query is refused before this runs.
 */
import { AuditEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AuditHandlerDeps } from './audit-deps.ts';

export const recordsList = handle(
  AuditEndpoints.recordsList,
  (_caller, query, { stores }: AuditHandlerDeps) => stores.records.page(query),
);
