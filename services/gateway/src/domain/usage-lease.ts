/**
 * One replica's lease on an agent's limited windows, as pure bookkeeping (no I/O): the block of
 * units it reserved in the counter rows and may serve without asking the database, what it served
 * from that block and has not yet settled, and what the rows said at the last statement
 * (docs/adr/0016-exact-limits-across-replicas.md).
 *
 * Invariant: this replica's part of the rows' `reserved` is `available + served`. Every other
 * replica's part (`others`) is treated as used: a remaining count shown to the agent never
 * promises a unit another replica holds.
 */
import type { UsageCounts, UsageLimits, UsageWindows } from './usage-windows.ts';

/** What the lease statement (gateway.lease_usage) answers. */
export interface LeaseAnswer {
  /** 1 when the waiting request was counted as served, 0 when the limits refused it. */
  taken: number;
  /** Units reserved ahead for this replica. */
  granted: number;
  /** The rows after the statement. */
  count: UsageCounts;
  reserved: UsageCounts;
}

/** What one statement sends for this lease (taken out of the bookkeeping when it is sent). */
export interface LeaseSettlement {
  /** Units served from reservations since the last statement: reserved → count. */
  settle: number;
  /** Units reserved and given back unused. */
  release: number;
  /** The latest request among those settled. */
  servedAt: Date | null;
}

export class UsageLease {
  readonly windows: UsageWindows;
  readonly limits: UsageLimits;
  /** Reserved units not yet served. */
  available = 0;
  /** Units served from reservations, not yet settled. */
  served = 0;
  lastServedAt: Date | null = null;
  /** The size of the last block granted: a renewal starts when half of it is gone. */
  lastGrant = 0;
  /** Served by the time of the last statement, every replica's settled requests. */
  #count: UsageCounts = { day: 0, month: 0 };
  /** Reserved by other replicas at the last statement. */
  #others: UsageCounts = { day: 0, month: 0 };
  /** Served since the last tick: an idle lease gives its block back. */
  usedSinceTick = false;

  constructor(windows: UsageWindows, limits: UsageLimits) {
    this.windows = windows;
    this.limits = limits;
  }

  /** The same windows and limits: the lease still applies. */
  fits(windows: UsageWindows, limits: UsageLimits): boolean {
    return (
      this.windows.day.start === windows.day.start &&
      this.windows.month.start === windows.month.start &&
      this.limits.daily === limits.daily &&
      this.limits.monthly === limits.monthly
    );
  }

  /** Serves one request from the block, if a unit is left. */
  tryServe(at: Date): boolean {
    if (this.available === 0) return false;
    this.available -= 1;
    this.served += 1;
    this.lastServedAt = at;
    this.usedSinceTick = true;
    return true;
  }

  /** Half of the last block is gone: time to reserve the next one while serving the rest. */
  wantsRenewal(): boolean {
    return this.lastGrant > 1 && this.available <= this.lastGrant / 2;
  }

  /** Takes out what the next statement settles, and gives back the whole block when `release`. */
  settlement(release: boolean): LeaseSettlement {
    const out = { settle: this.served, release: release ? this.available : 0, servedAt: this.lastServedAt };
    this.served = 0;
    if (release) this.available = 0;
    return out;
  }

  /** Puts a settlement back after its statement failed (nothing of it was applied). */
  restore(settlement: LeaseSettlement): void {
    this.served += settlement.settle;
    this.available += settlement.release;
  }

  /** Applies the statement's answer; `taken` was counted in the rows, not in the block. */
  apply(answer: LeaseAnswer): void {
    this.available += answer.granted;
    this.lastGrant = answer.granted;
    this.#count = { ...answer.count };
    const mine = this.available + this.served;
    this.#others = {
      day: Math.max(0, answer.reserved.day - mine),
      month: Math.max(0, answer.reserved.month - mine),
    };
  }

  /** Served in each window as this replica knows it: settled requests plus its own unsettled ones. */
  used(): UsageCounts {
    return { day: this.#count.day + this.served, month: this.#count.month + this.served };
  }

  /**
   * Units left in each limited window (Infinity without a limit), counting other replicas'
   * reservations as used.
   */
  remaining(): UsageCounts {
    const used = this.used();
    const left = (limit: number | null, served: number, others: number) =>
      limit === null ? Number.POSITIVE_INFINITY : Math.max(0, limit - served - others);
    return {
      day: left(this.limits.daily, used.day, this.#others.day),
      month: left(this.limits.monthly, used.month, this.#others.month),
    };
  }

  /**
   * Whether a refusal is final for the window: every unit of the broken limits was served, none is
   * merely held by another replica (which may still give it back).
   */
  servedOut(): boolean {
    const used = this.used();
    const out = (limit: number | null, served: number) => limit !== null && served >= limit;
    return out(this.limits.daily, used.day) || out(this.limits.monthly, used.month);
  }
}
