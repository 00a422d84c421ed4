/**
 * When a trigger runs: the instants of a TriggerSchedule in the trigger's time zone (the rules are
 * in the contracts' header of schemas/trigger.ts, the reasons in docs/adr/0049).
 *
 * - once, daily, weekly, monthly: a wall-clock time on a calendar day, read by atWallTime (a time
 *   skipped by DST runs at the end of the gap, a time shown twice runs once, at its first showing);
 *   monthly on a day the month lacks runs on the month's last day.
 * - interval: the anchor (the first atHour:atMinute after creation, stored with the trigger), then
 *   every intervalMinutes in absolute time: an interval does not shift with DST.
 *
 * Every function is O(1): catching up after any downtime computes the last due time directly.
 */
import { AppError, type TriggerSchedule, type WEEKDAYS } from '@pag/contracts';
import { DateTime, type WeekdayNumbers } from 'luxon';
import { atWallTime, type CalendarDay, calendarDay, clockText, inZone } from './wall-time.ts';

type CalendarSchedule = Extract<TriggerSchedule, { type: 'daily' | 'weekly' | 'monthly' }>;
type IntervalSchedule = Extract<TriggerSchedule, { type: 'interval' }>;
type OnceSchedule = Extract<TriggerSchedule, { type: 'once' }>;

/** Luxon's weekdays are ISO: 1 = Monday … 7 = Sunday. */
const ISO_WEEKDAY: Record<(typeof WEEKDAYS)[number], WeekdayNumbers> = {
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
  sunday: 7,
};

/**
 * The first run of a new trigger created at `now` (for an interval also its anchor). A `once`
 * whose time is not after `now` is refused: 400 INVALID_REQUEST naming schedule.date.
 */
export function firstRunAt(schedule: TriggerSchedule, timezone: string, now: Date): Date {
  switch (schedule.type) {
    case 'once': {
      const run = onceAt(schedule, timezone);
      if (run.getTime() <= now.getTime()) {
        throw new AppError(
          'INVALID_REQUEST',
          `Invalid trigger: schedule.date: ${schedule.date} at ${clockText(schedule.atHour, schedule.atMinute)} in ${timezone} is not in the future.`,
        );
      }
      return run;
    }
    case 'interval':
      return calendarRunAfter(
        { type: 'daily', atHour: schedule.atHour, atMinute: schedule.atMinute },
        timezone,
        now,
      );
    default:
      return calendarRunAfter(schedule, timezone, now);
  }
}

/**
 * The first run strictly after `after`, or null when there is none (a `once` whose time is not
 * after `after`). `anchor` is the trigger's anchor_at; only an interval needs it.
 */
export function nextRunAfter(
  schedule: TriggerSchedule,
  timezone: string,
  after: Date,
  anchor: Date | null,
): Date | null {
  switch (schedule.type) {
    case 'once': {
      const run = onceAt(schedule, timezone);
      return run.getTime() > after.getTime() ? run : null;
    }
    case 'interval': {
      const { start, period } = intervalOf(schedule, anchor);
      const periods = after.getTime() < start ? 0 : Math.floor((after.getTime() - start) / period) + 1;
      return new Date(start + periods * period);
    }
    default:
      return calendarRunAfter(schedule, timezone, after);
  }
}

/**
 * The last run due at or before `at`, or null when none is (the catch-up run after downtime stands
 * for every run missed; this is the time it is recorded for). `anchor` as for nextRunAfter.
 */
export function latestRunAtOrBefore(
  schedule: TriggerSchedule,
  timezone: string,
  at: Date,
  anchor: Date | null,
): Date | null {
  switch (schedule.type) {
    case 'once': {
      const run = onceAt(schedule, timezone);
      return run.getTime() <= at.getTime() ? run : null;
    }
    case 'interval': {
      const { start, period } = intervalOf(schedule, anchor);
      if (at.getTime() < start) return null;
      return new Date(start + Math.floor((at.getTime() - start) / period) * period);
    }
    default: {
      const day = calendarDay(at, timezone);
      const run = calendarRun(schedule, timezone, day, 0);
      return run.getTime() <= at.getTime() ? run : calendarRun(schedule, timezone, day, -1);
    }
  }
}

/** `instant` in `timezone`, ISO 8601 with milliseconds and offset: 2026-11-30T08:30:00.000+01:00. */
export function localIso(instant: Date, timezone: string): string {
  return inZone(instant, timezone).toISO();
}

function onceAt(schedule: OnceSchedule, timezone: string): Date {
  const day = DateTime.fromISO(schedule.date, { zone: 'utc' });
  return atWallTime(timezone, day, schedule.atHour, schedule.atMinute).toJSDate();
}

function intervalOf(schedule: IntervalSchedule, anchor: Date | null): { start: number; period: number } {
  if (anchor === null) throw new Error('An interval schedule runs from its anchor; none was given.');
  return { start: anchor.getTime(), period: schedule.intervalMinutes * 60_000 };
}

/**
 * The run in the period (day, week or month) that holds `after`'s calendar day, or the next
 * period's: a period's run lies within that period, so the one before it is never later.
 */
function calendarRunAfter(schedule: CalendarSchedule, timezone: string, after: Date): Date {
  const day = calendarDay(after, timezone);
  const run = calendarRun(schedule, timezone, day, 0);
  return run.getTime() > after.getTime() ? run : calendarRun(schedule, timezone, day, 1);
}

/** The run of the period `offset` periods from the one holding `day`. */
function calendarRun(schedule: CalendarSchedule, timezone: string, day: CalendarDay, offset: number): Date {
  return atWallTime(timezone, runDay(schedule, day, offset), schedule.atHour, schedule.atMinute).toJSDate();
}

function runDay(schedule: CalendarSchedule, day: CalendarDay, offset: number): CalendarDay {
  switch (schedule.type) {
    case 'daily':
      return day.plus({ days: offset });
    case 'weekly':
      // set() stays in the same Monday-to-Sunday week.
      return day.plus({ weeks: offset }).set({ weekday: ISO_WEEKDAY[schedule.weekday] });
    case 'monthly': {
      const month = day.startOf('month').plus({ months: offset });
      return month.set({ day: Math.min(schedule.dayOfMonth, month.endOf('month').day) });
    }
  }
}
