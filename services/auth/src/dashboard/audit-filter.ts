/**
 * The filter of /dashboard/audit and its export, read from the page's GET query: what the owner
 * typed (kept as text, to show it again and to build the "older" and export links) and the
 * AuditQuery it means. A value that means nothing is an AppError INVALID_REQUEST whose message
 * says which field and what it takes: the page shows it (400), never a 500.
 *
 * Times are UTC, as the page shows them. A date alone means the whole day: `from` is its first
 * instant, `to` the first instant of the next day (`to` is exclusive, as AuditQuery's `until`).
 */
import type { AuditDecision, AuditQuery } from '@pag/contracts';
import { AppError, AUDIT_DECISIONS, AUDIT_STATUS_CLASSES } from '@pag/contracts';

/** The form's fields, as typed ('' when empty). */
export interface AuditFilterValues {
  agent: string;
  status: string;
  decision: string;
  path: string;
  from: string;
  to: string;
}

export const FILTER_FIELDS = ['agent', 'status', 'decision', 'path', 'from', 'to'] as const;

export const EMPTY_FILTER: AuditFilterValues = {
  agent: '',
  status: '',
  decision: '',
  path: '',
  from: '',
  to: '',
};

/** The filter part of an AuditQuery (the account and the page size are the route's). */
export type AuditFilter = Omit<AuditQuery, 'accountId' | 'limit' | 'before'>;

export interface ParsedFilter {
  filter: AuditFilter;
  /** The page's cursor (`before`), when paging. */
  before: number | undefined;
}

const invalid = (message: string) => new AppError('INVALID_REQUEST', message);

/** One value per field: a repeated parameter counts as its first value. */
export function field(query: Record<string, string | string[] | undefined>, name: string): string {
  const value = query[name];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).trim();
}

function readStatus(text: string): AuditFilter['status'] {
  if (text === '') return undefined;
  const lower = text.toLowerCase();
  const statusClass = AUDIT_STATUS_CLASSES.find((candidate) => candidate === lower);
  if (statusClass !== undefined) return statusClass;
  if (/^\d{3}$/.test(text) && Number(text) >= 100 && Number(text) <= 599) return Number(text);
  throw invalid('Status must be an HTTP status such as 404, or a class: 2xx, 3xx, 4xx or 5xx.');
}

function readDecision(text: string): AuditDecision | undefined {
  if (text === '' || text === 'any') return undefined;
  const decision = AUDIT_DECISIONS.find((candidate) => candidate === text);
  if (decision === undefined) throw invalid(`Decision must be one of ${AUDIT_DECISIONS.join(', ')}.`);
  return decision;
}

function readPath(text: string): string | undefined {
  if (text === '') return undefined;
  if (!text.startsWith('/') || text.length > 500)
    throw invalid(
      'The path prefix must begin with / (for example /api/v1/memory) and be at most 500 characters.',
    );
  return text;
}

const TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * An instant from the form: a date, or a date and time (UTC unless it names an offset). `end`
 * makes a date alone mean the end of that day. undefined when empty; an error when not a real time.
 */
export function readTime(text: string, label: string, end: boolean): string | undefined {
  if (text === '') return undefined;
  const parts = TIME.exec(text);
  const wrong = invalid(`${label} must be a date (2026-11-24) or a date and time in UTC (2026-11-24T09:30).`);
  if (parts === null) throw wrong;
  const [, year, month, day, hour, minute, second, fraction, zone] = parts;
  const numbers = [year, month, day, hour ?? '00', minute ?? '00', second ?? '00'].map(Number);
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0] = numbers;
  const ms = Number((fraction ?? '0').padEnd(3, '0'));
  const utc = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  // Date.UTC rolls 2026-02-30 over into March: a date that is not on the calendar is refused.
  if (
    utc.getUTCFullYear() !== y ||
    utc.getUTCMonth() !== mo - 1 ||
    utc.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    throw wrong;
  let instant = utc.getTime();
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    instant -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  if (end && hour === undefined) instant += 24 * 3600_000;
  return new Date(instant).toISOString();
}

function readBefore(text: string): number | undefined {
  if (text === '') return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1)
    throw invalid('The page cursor (before) must be a positive whole number.');
  return Number(text);
}

/** The form's fields from the query string, as typed (a repeated parameter counts once). */
export function filterValues(query: Record<string, string | string[] | undefined>): AuditFilterValues {
  return {
    agent: field(query, 'agent'),
    status: field(query, 'status'),
    decision: field(query, 'decision'),
    path: field(query, 'path'),
    from: field(query, 'from'),
    to: field(query, 'to'),
  };
}

/** What the fields and the cursor mean; throws INVALID_REQUEST saying what to fix. */
export function parseAuditFilter(values: AuditFilterValues, beforeText = ''): ParsedFilter {
  const agent = values.agent === '' || values.agent === 'any' ? undefined : values.agent;
  if (agent !== undefined && agent.length > 200) throw invalid('No such agent.');
  const since = readTime(values.from, 'From', false);
  const until = readTime(values.to, 'To', true);
  if (since !== undefined && until !== undefined && since >= until)
    throw invalid('From must be earlier than to.');
  const filter: AuditFilter = {
    ...optional('agentId', agent),
    ...optional('status', readStatus(values.status)),
    ...optional('decision', readDecision(values.decision)),
    ...optional('pathPrefix', readPath(values.path)),
    ...optional('since', since),
    ...optional('until', until),
  };
  return { filter, before: readBefore(beforeText) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The query string of a filter (only the fields given), plus a cursor: for links. */
export function filterSearch(values: AuditFilterValues, before?: number): string {
  const search = new URLSearchParams();
  for (const name of FILTER_FIELDS)
    if (values[name] !== '' && values[name] !== 'any') search.set(name, values[name]);
  if (before !== undefined) search.set('before', String(before));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
