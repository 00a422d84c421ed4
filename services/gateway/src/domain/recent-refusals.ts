/**
 * Agents refused lately, so a replica can refuse them again without asking the database: within
 * a window, an agent's count never drops below a limit it reached (served requests are never
 * taken back), so a refusal holds until that window resets or the limit changes (the owner
 * raised it: the next introspection answer says so). Bounded; the oldest refusal leaves first.
 */
import type { BrokenLimit, UsageLimits, UsageWindows } from './usage-windows.ts';

interface Refusal {
  limits: UsageLimits;
  /** The windows the refusal was decided in. */
  windows: UsageWindows;
  broken: BrokenLimit[];
}

export class RecentRefusals {
  readonly #refusals = new Map<string, Refusal>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** The limits still broken for this agent now (none: ask the counters). */
  stillBroken(agent: string, limits: UsageLimits, windows: UsageWindows): BrokenLimit[] {
    const refusal = this.#refusals.get(agent);
    if (refusal === undefined) return [];
    const sameLimits = refusal.limits.daily === limits.daily && refusal.limits.monthly === limits.monthly;
    const broken = sameLimits
      ? refusal.broken.filter(({ period }) =>
          period === 'daily'
            ? refusal.windows.day.start === windows.day.start
            : refusal.windows.month.start === windows.month.start,
        )
      : [];
    if (broken.length === 0) this.#refusals.delete(agent);
    return broken;
  }

  remember(agent: string, limits: UsageLimits, windows: UsageWindows, broken: BrokenLimit[]): void {
    this.#refusals.delete(agent);
    this.#refusals.set(agent, { limits, windows, broken });
    if (this.#refusals.size > this.#maxEntries)
      this.#refusals.delete(this.#refusals.keys().next().value as string);
  }
}
