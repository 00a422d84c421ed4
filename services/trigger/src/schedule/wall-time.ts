/**
 * A wall-clock time on a calendar day in an IANA zone, as one instant, with the two DST rules of
 * the contracts' TriggerSchedule: a time the clocks skip (spring forward) is read as the first
 * minute after the gap, and a time they show twice (fall back) as its first, earlier showing.
 * Luxon does every offset lookup; this file only chooses between its readings.
 */
import { DateTime } from 'luxon';

/** A calendar day: only year, month and day count (Luxon in UTC, so that date arithmetic never meets a DST change). */
export type CalendarDay = DateTime;

/** The calendar day `instant` falls on in `zone`. */
export function calendarDay(instant: Date, zone: string): CalendarDay {
  const local = inZone(instant, zone);
  return DateTime.utc(local.year, local.month, local.day);
}

/** `instant` as seen in `zone`; an unknown zone is a bug upstream (the contracts validate every stored zone). */
export function inZone(instant: Date, zone: string): DateTime<true> {
  const local = DateTime.fromJSDate(instant, { zone });
  if (!local.isValid)
    throw new Error(`Cannot read an instant in time zone ${zone}: ${local.invalidExplanation}`);
  return local;
}

/** The instant `day` at hour:minute shows on the wall clock in `zone` (see the header for DST). */
export function atWallTime(zone: string, day: CalendarDay, hour: number, minute: number): DateTime {
  const wall = DateTime.utc(day.year, day.month, day.day, hour, minute);
  const read = DateTime.fromObject(
    { year: day.year, month: day.month, day: day.day, hour, minute },
    { zone },
  );
  if (!read.isValid)
    throw new Error(`Cannot read a wall time in time zone ${zone}: ${read.invalidExplanation}`);
  if (wallClock(read) > wall) return endOfGap(read, wall);
  // For a wall time shown twice Luxon picks the reading whose offset was in force when the
  // process first used the zone (guessOffsetForZone in luxon/src/datetime.js), so the answer would
  // depend on the season the service started in; we take the earlier reading ourselves.
  return DateTime.min(...read.getPossibleOffsets()) ?? read;
}

/** The wall-clock reading of `local`, as a UTC DateTime so that readings compare as plain numbers. */
function wallClock(local: DateTime): DateTime {
  return local.setZone('utc', { keepLocalTime: true });
}

/**
 * The instant a DST gap ends, given Luxon's reading of a wall time inside it: Luxon reads it with
 * the offset in force before the gap, so `read` lies the gap's length past the time asked for
 * (02:30 reads as 03:30). Between `read` minus that length (before the gap: its wall clock is
 * earlier than asked) and `read` the wall clock only jumps forward once, so halving the distance
 * finds the first minute whose wall clock is not earlier than `wall`: the end of the gap (03:00).
 */
function endOfGap(read: DateTime, wall: DateTime): DateTime {
  let before = 0; // minutes from `read` back to the last instant known to show a time at or after `wall`
  let after = wallClock(read).diff(wall, 'minutes').minutes; // back to one known to show an earlier time
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (wallClock(read.minus({ minutes: middle })) >= wall) before = middle;
    else after = middle;
  }
  return read.minus({ minutes: before });
}

/** hour:minute as 08:30. */
export function clockText(hour: number, minute: number): string {
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}
