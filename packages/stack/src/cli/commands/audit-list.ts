/**
 * `pag audit list --owner E [--agent ID] [--since T] [--until T] [--status S] [--limit N] [--json]`:
 * one owner's audit rows, newest first, read from the database with the same query the audit
 * service answers the dashboard with (@pag/audit's AuditRecords), so the two cannot disagree.
 * The owner is named by email and only that account's rows are read (the tenancy boundary).
 *
 * One line per row by default; with --json one AuditRecord per line (NDJSON, as the dashboard's
 * export). --limit (default 50) is the most rows printed; more than one page is read as needed.
 * --since/--until: ISO 8601 in UTC or with an offset; a date alone is a whole day (UTC), so
 * `--since 2026-11-20 --until 2026-11-20` is that day. --status: 404, or a class such as 4xx.
 */
import { openAuditRecords } from '@pag/audit';
import type { AuditRecord } from '@pag/contracts';
import { AUDIT_PAGE_MAX, AUDIT_STATUS_CLASSES, AuditQuery } from '@pag/contracts';
import type { Command, CommandContext } from '../command.ts';
import { CliError } from '../command.ts';
import { ownerAccount } from './agent.ts';

const DEFAULT_LIMIT = 50;
const DAY_MS = 24 * 3600_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function option(context: CommandContext, name: string): string | undefined {
  const value = context.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** An instant in UTC; a date alone is its first instant, or for --until the next day's. */
function instantOption(context: CommandContext, name: 'since' | 'until'): string | undefined {
  const text = option(context, name);
  if (text === undefined) return undefined;
  const wrong = new CliError(
    `--${name} must be a date (2026-11-24) or a time with its zone (2026-11-24T09:30:00Z)`,
  );
  if (DATE.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    // 2026-02-30 is not a day: refused rather than rolled over into March.
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) throw wrong;
    return new Date(ms + (name === 'until' ? DAY_MS : 0)).toISOString();
  }
  const ms = Date.parse(text);
  if (!DATE_TIME.test(text) || Number.isNaN(ms)) throw wrong;
  return new Date(ms).toISOString();
}

function statusOption(context: CommandContext): number | (typeof AUDIT_STATUS_CLASSES)[number] | undefined {
  const text = option(context, 'status')?.toLowerCase();
  if (text === undefined) return undefined;
  const statusClass = AUDIT_STATUS_CLASSES.find((candidate) => candidate === text);
  if (statusClass !== undefined) return statusClass;
  if (/^[1-5]\d\d$/.test(text)) return Number(text);
  throw new CliError('--status must be an HTTP status such as 404, or a class: 2xx, 3xx, 4xx or 5xx');
}

function limitOption(context: CommandContext): number {
  const text = option(context, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw new CliError('--limit must be a whole number of at least 1');
  return Number(text);
}

/** One row as a line: seq, time, agent (or who acted), what, status, decision, latency. */
export function auditLine(record: AuditRecord): string {
  const who = record.agentId ?? record.actorType ?? '-';
  const what =
    record.kind === 'request'
      ? `${record.method ?? ''} ${record.path ?? ''}`
      : [record.action, record.target].filter((part) => part !== null).join(' ');
  return [
    `#${record.seq}`,
    record.time,
    who,
    what,
    record.status === null ? '-' : String(record.status),
    record.reason === null ? record.decision : `${record.decision} ${record.reason}`,
    record.latencyMs === null ? '-' : `${record.latencyMs} ms`,
  ].join('  ');
}

export const auditList: Command = {
  name: 'audit list',
  usage: '--owner E [--agent ID] [--since T] [--until T] [--status S] [--limit N] [--json]',
  options: {
    owner: { type: 'string' },
    agent: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(context) {
    const owner = await (async () => {
      await using store = await context.openAuth();
      return ownerAccount(store, context);
    })();
    const filter = {
      accountId: owner.id,
      agentId: option(context, 'agent'),
      status: statusOption(context),
      since: instantOption(context, 'since'),
      until: instantOption(context, 'until'),
    };
    const checked = AuditQuery.safeParse(filter);
    if (!checked.success)
      throw new CliError(
        checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
      );
    const limit = limitOption(context);
    await using log = openAuditRecords({ databaseUrl: context.databaseUrl, logger: context.logger });
    let printed = 0;
    let before: number | undefined;
    while (printed < limit) {
      const page = await log.records.page({
        ...checked.data,
        limit: Math.min(limit - printed, AUDIT_PAGE_MAX),
        ...(before === undefined ? {} : { before }),
      });
      for (const record of page.records)
        context.out(context.values.json === true ? JSON.stringify(record) : auditLine(record));
      printed += page.records.length;
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    if (printed === 0 && context.values.json !== true) context.out(`no audit rows for ${owner.email}`);
  },
};
