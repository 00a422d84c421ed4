/**
 * One unit charged to an agent's UTC day and month: the one decision behind both an
 * authenticated request (pipeline/count-usage.ts) and a trigger run (gateway.usage.charge), so a
 * run counts against its agent's limits exactly like a request, on the same counter rows and
 * leases (docs/adr/0016-exact-limits-across-replicas.md).
 *
 * An agent without limits is counted in memory and written a moment later. An agent with a limit
 * is decided through this replica's lease on its allowance: served (and counted) or refused. A
 * refusal because every unit was served holds until the window resets or the limit changes, and
 * is repeated from memory (RecentRefusals: an agent retrying in a loop costs the database
 * nothing); a refusal because the last units are reserved by other replicas asks for a retry in a
 * moment (they are served or given back within a tick). A counter that cannot answer throws: a
 * limit is never skipped silently.
 */
import { RecentRefusals } from '../domain/recent-refusals.ts';
import type { BrokenLimit, UsageCounts, UsageLimits, UsageWindows } from '../domain/usage-windows.ts';
import { describeBrokenLimits, retryAfterSeconds, usageWindows } from '../domain/usage-windows.ts';
import type { LimitDecision } from './usage-leases.ts';
import type { AgentKey } from './usage-store.ts';

/** Where counts are kept (the usage store), behind an interface like the introspector. */
export interface UsageCounter {
  /** Decides one unit of an agent with a limit: served (and counted) or refused. */
  take(key: AgentKey, windows: UsageWindows, limits: UsageLimits, at: Date): Promise<LimitDecision>;
  /** Counts one unit of an agent without limits, written shortly. */
  countLater(key: AgentKey, windows: UsageWindows, at: Date): void;
}

export type Charge =
  | {
      served: true;
      windows: UsageWindows;
      /** Used in each window, this unit included; null without limits (not waited for). */
      used: UsageCounts | null;
      /** Left in each window; null without limits. */
      remaining: UsageCounts | null;
    }
  | {
      served: false;
      windows: UsageWindows;
      /** Left in each window the agent could use: 0 in every broken one. */
      remaining: UsageCounts;
      retryAfterSeconds: number;
      /** Seconds until a retry may succeed per broken window, when sooner than its reset. */
      resetIn: Partial<Record<BrokenLimit['period'], number>>;
      /** The limit that was hit and when it resets, in words. */
      message: string;
    };

/**
 * Retry-After of a refusal while other replicas hold the last units: they settle what they served
 * and give back idle blocks every second.
 */
const HELD_RETRY_SECONDS = 2;

export class UsageCharger {
  readonly #counter: UsageCounter;
  readonly #refusals = new RecentRefusals();

  constructor(counter: UsageCounter) {
    this.#counter = counter;
  }

  /** Charges one unit to the agent at `now`; throws when the counter cannot answer. */
  async charge(key: AgentKey, limits: UsageLimits, now: Date): Promise<Charge> {
    const windows = usageWindows(now);
    if (limits.daily === null && limits.monthly === null) {
      this.#counter.countLater(key, windows, now);
      return { served: true, windows, used: null, remaining: null };
    }
    const agent = `${key.accountId}\n${key.clientId}`;
    const known = this.#refusals.stillBroken(agent, limits, windows);
    if (known.length > 0) return refusal(known, windows, { day: 0, month: 0 }, now);
    const decision = await this.#counter.take(key, windows, limits, now);
    if (decision.served) return { served: true, windows, used: decision.used, remaining: decision.remaining };
    const broken = brokenWindows(limits, windows, decision.remaining);
    if (!decision.final) return refusal(broken, windows, decision.remaining, now, HELD_RETRY_SECONDS);
    this.#refusals.remember(agent, limits, windows, broken);
    return refusal(broken, windows, decision.remaining, now);
  }
}

/** The limited windows with nothing left. */
function brokenWindows(limits: UsageLimits, windows: UsageWindows, remaining: UsageCounts): BrokenLimit[] {
  const broken: BrokenLimit[] = [];
  if (limits.daily !== null && remaining.day <= 0)
    broken.push({ period: 'daily', limit: limits.daily, resetsAt: windows.day.endsAt });
  if (limits.monthly !== null && remaining.month <= 0)
    broken.push({ period: 'monthly', limit: limits.monthly, resetsAt: windows.month.endsAt });
  return broken;
}

function refusal(
  broken: BrokenLimit[],
  windows: UsageWindows,
  remaining: UsageCounts,
  now: Date,
  retrySooner?: number,
): Charge {
  // Windows a remembered refusal did not break still have units, but none this unit could use.
  const left = {
    day: broken.some((b) => b.period === 'daily') ? 0 : remaining.day,
    month: broken.some((b) => b.period === 'monthly') ? 0 : remaining.month,
  };
  return {
    served: false,
    windows,
    remaining: left,
    retryAfterSeconds: retrySooner ?? retryAfterSeconds(broken, now),
    resetIn: retrySooner === undefined ? {} : Object.fromEntries(broken.map((b) => [b.period, retrySooner])),
    message:
      retrySooner === undefined
        ? describeBrokenLimits(broken)
        : `${describeBrokenLimits(broken)} The last requests are reserved by other gateway replicas and may be given back within seconds.`,
  };
}
