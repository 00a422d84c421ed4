/**
 * Per-agent request limits, as pure logic: the UTC calendar day and month a request falls in,
 * and which of the agent's limits a count breaks. Counts include the request being decided, so
 * a limit of 3 lets the third request through and refuses the fourth.
 */

export type UsagePeriod = 'daily' | 'monthly';

export interface UsageWindow {
  /** The first day of the window (UTC), YYYY-MM-DD: the key of its counter row. */
  start: string;
  /** When the next window starts, i.e. when this one's count resets. */
  endsAt: Date;
}

export interface UsageWindows {
  day: UsageWindow;
  month: UsageWindow;
}

/** Requests counted in the current windows, the one being decided included. */
export interface UsageCounts {
  day: number;
  month: number;
}

export interface UsageLimits {
  daily: number | null;
  monthly: number | null;
}

export interface BrokenLimit {
  period: UsagePeriod;
  limit: number;
  resetsAt: Date;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The windows of the UTC day last asked for: every counted request asks, and they change once a
 * day (docs/adr/0074). Frozen, since every caller of that day shares them.
 */
let today: { from: number; until: number; windows: UsageWindows } | undefined;

export function usageWindows(now: Date): UsageWindows {
  const ms = now.getTime();
  if (today !== undefined && ms >= today.from && ms < today.until) return today.windows;
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = now.getUTCDate();
  const windows: UsageWindows = Object.freeze({
    day: Object.freeze({
      start: isoDay(Date.UTC(year, month, day)),
      endsAt: new Date(Date.UTC(year, month, day + 1)),
    }),
    month: Object.freeze({
      start: isoDay(Date.UTC(year, month, 1)),
      endsAt: new Date(Date.UTC(year, month + 1, 1)),
    }),
  });
  today = { from: Date.UTC(year, month, day), until: Date.UTC(year, month, day + 1), windows };
  return windows;
}

/** The limits the counts exceed (none: the request may be served). */
export function brokenLimits(limits: UsageLimits, counts: UsageCounts, windows: UsageWindows): BrokenLimit[] {
  const broken: BrokenLimit[] = [];
  if (limits.daily !== null && counts.day > limits.daily)
    broken.push({ period: 'daily', limit: limits.daily, resetsAt: windows.day.endsAt });
  if (limits.monthly !== null && counts.month > limits.monthly)
    broken.push({ period: 'monthly', limit: limits.monthly, resetsAt: windows.month.endsAt });
  return broken;
}

/** Whole seconds until every broken limit has reset (at least 1): the Retry-After value. */
export function retryAfterSeconds(broken: readonly BrokenLimit[], now: Date): number {
  const latest = Math.max(...broken.map((limit) => limit.resetsAt.getTime()));
  return Math.max(1, Math.ceil((latest - now.getTime()) / 1000));
}

/** Names each broken limit and when it resets, e.g. for the 429 message. */
export function describeBrokenLimits(broken: readonly BrokenLimit[]): string {
  const parts = broken.map(
    ({ period, limit, resetsAt }) =>
      `its ${period} limit of ${limit} request${limit === 1 ? '' : 's'} (resets at ${resetsAt.toISOString()})`,
  );
  return `This agent has reached ${parts.join(' and ')}.`;
}
