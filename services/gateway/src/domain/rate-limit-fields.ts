/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10) for an agent's
 * limits: one quota policy per limited window, named "daily" and "monthly", in requests.
 *
 *   RateLimit-Policy: "daily";q=50;w=86400, "monthly";q=1000;w=2592000
 *   RateLimit: "daily";r=0;t=3600, "monthly";r=951;t=1213200
 *
 * `w` is the window's length in seconds (a UTC calendar day; the current UTC calendar month, so
 * 28 to 31 days); `r` the requests left; `t` the seconds until the window resets (the next UTC
 * midnight or first of the month), or until `Retry-After` when the gateway asks the agent to retry
 * sooner. Windows are calendar windows, not sliding ones: `t` is always the time to that boundary.
 */
import type { UsageCounts, UsageLimits, UsagePeriod, UsageWindow, UsageWindows } from './usage-windows.ts';

export interface RateLimitFields {
  'ratelimit-policy': string;
  ratelimit: string;
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * The two fields for the limited windows (undefined when the agent has no limit). `resetIn`
 * overrides `t` of a window (seconds), e.g. the Retry-After of a refusal.
 */
export function rateLimitFields(
  limits: UsageLimits,
  windows: UsageWindows,
  remaining: UsageCounts,
  now: Date,
  resetIn: Partial<Record<UsagePeriod, number>> = {},
): RateLimitFields | undefined {
  const policies: string[] = [];
  const states: string[] = [];
  const add = (period: UsagePeriod, limit: number | null, window: UsageWindow, left: number, start: Date) => {
    if (limit === null) return;
    const t = resetIn[period] ?? seconds(window.endsAt.getTime() - now.getTime());
    policies.push(`"${period}";q=${limit};w=${seconds(window.endsAt.getTime() - start.getTime())}`);
    states.push(`"${period}";r=${Math.max(0, Math.min(limit, left))};t=${t}`);
  };
  add('daily', limits.daily, windows.day, remaining.day, new Date(`${windows.day.start}T00:00:00Z`));
  add(
    'monthly',
    limits.monthly,
    windows.month,
    remaining.month,
    new Date(`${windows.month.start}T00:00:00Z`),
  );
  if (policies.length === 0) return undefined;
  return { 'ratelimit-policy': policies.join(', '), ratelimit: states.join(', ') };
}
