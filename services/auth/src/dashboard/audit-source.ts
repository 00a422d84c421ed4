/**
 * The owner's audit rows, asked of the audit service over the bus (audit.records.list through
 * kit's requestEndpoint): the auth service never reads the audit tables (a service never reads
 * another's data; docs/adr/0040). Every query names the signed-in owner's account.
 *
 * When no audit service answers (none running, or not in time) the log is "unavailable": an
 * AppError SERVICE_UNAVAILABLE (503) whose message the page may show. Anything else the audit
 * service answered (an AppError, a reply that breaks the contract) goes on as it came.
 */
import { randomUUID } from 'node:crypto';
import type { AuditPage, AuditRecord } from '@pag/contracts';
import { AppError, AUDIT_PAGE_MAX, AuditEndpoints, MessageHeaders } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { BusNoRespondersError, BusTimeoutError, requestEndpoint } from '@pag/kit';
import type { AuditFilter } from './audit-filter.ts';

export const AUDIT_TIMEOUT_MS = 5000;

export interface AuditSource {
  bus: Bus;
  accountId: string;
  /** Correlates the bus requests with the page request. */
  requestId: string | undefined;
}

export const UNAVAILABLE_MESSAGE =
  'The audit log is unavailable right now: the audit service did not answer. Try again in a moment.';

/** One page of the owner's rows, newest first. */
export async function auditPage(
  { bus, accountId, requestId }: AuditSource,
  filter: AuditFilter,
  page: { limit: number; before?: number | undefined },
): Promise<AuditPage> {
  const query = {
    accountId,
    ...filter,
    limit: page.limit,
    ...(page.before === undefined ? {} : { before: page.before }),
  };
  try {
    return await requestEndpoint(bus, AuditEndpoints.recordsList, query, {
      timeoutMs: AUDIT_TIMEOUT_MS,
      headers: { [MessageHeaders.requestId]: requestId || randomUUID() },
    });
  } catch (error) {
    if (error instanceof BusNoRespondersError || error instanceof BusTimeoutError)
      throw new AppError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE, { cause: error, expose: true });
    throw error;
  }
}

/**
 * Every matching row, newest first, in pages of AUDIT_PAGE_MAX, starting with `first` (already
 * asked, so that an unavailable log is known before an answer starts). Paging by seq makes the
 * export one consistent cut: rows appended meanwhile are newer than the first page and not in it.
 */
export async function* everyRecord(
  source: AuditSource,
  filter: AuditFilter,
  first: AuditPage,
): AsyncGenerator<AuditRecord> {
  let page = first;
  for (;;) {
    yield* page.records;
    if (page.nextBefore === null) return;
    page = await auditPage(source, filter, { limit: AUDIT_PAGE_MAX, before: page.nextBefore });
  }
}
