/**
 * /dashboard/audit: the signed-in owner's audit log, read from the audit service over the bus.
 *
 * - GET /audit                 the filter form and one page of rows (50), newest first; `before`
 *                              pages to older rows
 * - GET /audit/export.ndjson   every row of the same filter as NDJSON (an attachment), streamed
 *                              in pages of 200
 *
 * What it enforces:
 * - tenancy: every query names the signed-in owner's account (audit-source.ts); an agent of the
 *   filter that is not the owner's simply matches nothing;
 * - a filter that means nothing is a 400 page saying which field and why, never a 500;
 * - no audit service answering: the page says the log is unavailable (503) and still shows the
 *   form; the export answers the 503 page before any row is sent;
 * - an export that fails part-way is cut off (the connection is reset, not ended), so a download
 *   that completed holds every matching row.
 */
import { Readable } from 'node:stream';
import type { Router } from '@koa/router';
import type { AuditPage } from '@pag/contracts';
import { AppError, AUDIT_PAGE_MAX, MessageHeaders } from '@pag/contracts';
import type { Context } from 'koa';
import { sendPage } from '../interactions/page-security.ts';
import type { AuditFilterValues } from './audit-filter.ts';
import { field, filterValues, parseAuditFilter } from './audit-filter.ts';
import type { AuditPageInput } from './audit-pages.ts';
import { auditPageHtml } from './audit-pages.ts';
import type { AuditSource } from './audit-source.ts';
import { auditPage, everyRecord } from './audit-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';

/** Rows on one page of the dashboard. */
export const DASHBOARD_PAGE_ROWS = 50;

const isRefusal = (error: unknown, code: 'INVALID_REQUEST' | 'SERVICE_UNAVAILABLE'): error is AppError =>
  error instanceof AppError && error.code === code;

export function registerAuditRoutes(router: Router, deps: DashboardDeps): void {
  const sourceOf = (ctx: Context): AuditSource => ({
    bus: deps.bus,
    accountId: ownerOf(ctx).id,
    requestId: ctx.get(MessageHeaders.requestId) || undefined,
  });

  router.get('/audit', async (ctx) => {
    const owner = ownerOf(ctx);
    const values: AuditFilterValues = filterValues(ctx.query);
    const agents = await deps.core.agents.list(owner.id);
    const shown: AuditPageInput = { owner, agents, values, records: null, nextBefore: null, paging: false };
    let page: AuditPage;
    try {
      const { filter, before } = parseAuditFilter(values, field(ctx.query, 'before'));
      shown.paging = before !== undefined;
      page = await auditPage(sourceOf(ctx), filter, { limit: DASHBOARD_PAGE_ROWS, before });
    } catch (error) {
      if (!isRefusal(error, 'INVALID_REQUEST') && !isRefusal(error, 'SERVICE_UNAVAILABLE')) throw error;
      deps.logger.info({ err: error, accountId: owner.id }, 'audit log page refused');
      return sendPage(ctx, error.status, auditPageHtml({ ...shown, error: error.message }));
    }
    sendPage(ctx, 200, auditPageHtml({ ...shown, records: page.records, nextBefore: page.nextBefore }));
  });

  router.get('/audit/export.ndjson', async (ctx) => {
    // A bad filter or an unavailable log throws before anything is sent: pageGuard's page.
    const { filter } = parseAuditFilter(filterValues(ctx.query));
    const source = sourceOf(ctx);
    const first = await auditPage(source, filter, { limit: AUDIT_PAGE_MAX });
    const lines = async function* () {
      for await (const record of everyRecord(source, filter, first)) yield `${JSON.stringify(record)}\n`;
    };
    ctx.status = 200;
    ctx.attachment(`audit-${new Date().toISOString().slice(0, 10)}.ndjson`);
    ctx.type = 'application/x-ndjson; charset=utf-8';
    // Koa pipes it with stream.pipeline: a failing page destroys the response (no clean end).
    ctx.body = Readable.from(lines());
  });
}
