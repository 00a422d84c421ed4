/**
 * A schedule in words, for the owner's dashboard: “every Monday at 08:30 (Europe/Berlin)”. The
 * month-end and interval rules are spelled out where they apply, so the words never promise a
 * time the scheduler will not keep.
 */
import type { TriggerSchedule } from '@pag/contracts';
import { clockText } from './wall-time.ts';

export function describeSchedule(schedule: TriggerSchedule, timezone: string): string {
  const at = clockText(schedule.atHour, schedule.atMinute);
  return `${when(schedule, at)} (${timezone})`;
}

function when(schedule: TriggerSchedule, at: string): string {
  switch (schedule.type) {
    case 'once':
      return `once on ${schedule.date} at ${at}`;
    case 'interval':
      return `every ${period(schedule.intervalMinutes)} from ${at}`;
    case 'daily':
      return `every day at ${at}`;
    case 'weekly':
      return `every ${schedule.weekday.charAt(0).toUpperCase()}${schedule.weekday.slice(1)} at ${at}`;
    case 'monthly':
      return schedule.dayOfMonth > 28
        ? `every month on day ${schedule.dayOfMonth} (or its last day) at ${at}`
        : `every month on day ${schedule.dayOfMonth} at ${at}`;
  }
}

/** 5 minutes, 1 hour, 90 minutes, 2 hours, 1 day, 7 days. */
function period(minutes: number): string {
  if (minutes % 1440 === 0) return plural(minutes / 1440, 'day');
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(minutes, 'minute');
}

function plural(count: number, unit: string): string {
  return count === 1 ? unit : `${count} ${unit}s`;
}
