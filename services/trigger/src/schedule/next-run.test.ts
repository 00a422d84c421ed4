import { describe, expect, test } from '@jest/globals';
import { AppError, type TriggerSchedule } from '@pag/contracts';
import { firstRunAt, latestRunAtOrBefore, localIso, nextRunAfter } from './next-run.ts';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const SYDNEY = 'Australia/Sydney';

const at = (iso: string): Date => new Date(iso);

/** The runs after `from`, one after another, as local ISO times (what an owner would read). */
function runs(
  schedule: TriggerSchedule,
  zone: string,
  from: string,
  count: number,
  anchor: Date | null = null,
) {
  const seen: string[] = [];
  let after = at(from);
  for (let i = 0; i < count; i += 1) {
    const next = nextRunAfter(schedule, zone, after, anchor);
    if (next === null) break;
    seen.push(localIso(next, zone));
    after = next;
  }
  return seen;
}

describe('daily across a spring-forward change: a skipped time runs at the end of the gap', () => {
  const daily = (atHour: number, atMinute: number): TriggerSchedule => ({ type: 'daily', atHour, atMinute });

  test('Europe/Berlin, 02:30 on 29 March 2026 (02:00 → 03:00) runs at 03:00', () => {
    expect(runs(daily(2, 30), BERLIN, '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T02:30:00.000+01:00',
      '2026-03-29T03:00:00.000+02:00',
      '2026-03-30T02:30:00.000+02:00',
    ]);
  });

  test('America/New_York, 02:30 on 8 March 2026 (02:00 → 03:00) runs at 03:00', () => {
    expect(runs(daily(2, 30), NEW_YORK, '2026-03-07T12:00:00Z', 3)).toEqual([
      '2026-03-08T03:00:00.000-04:00',
      '2026-03-09T02:30:00.000-04:00',
      '2026-03-10T02:30:00.000-04:00',
    ]);
  });

  test('Australia/Sydney, 02:30 on 4 October 2026 (02:00 → 03:00) runs at 03:00', () => {
    expect(runs(daily(2, 30), SYDNEY, '2026-10-02T12:00:00Z', 3)).toEqual([
      '2026-10-03T02:30:00.000+10:00',
      '2026-10-04T03:00:00.000+11:00',
      '2026-10-05T02:30:00.000+11:00',
    ]);
  });

  test('a half-hour gap (Australia/Lord_Howe, 02:00 → 02:30): 02:15 runs at 02:30', () => {
    expect(runs(daily(2, 15), 'Australia/Lord_Howe', '2026-10-03T00:00:00Z', 1)).toEqual([
      '2026-10-04T02:30:00.000+11:00',
    ]);
  });

  test('the first minute of the gap itself runs at its end', () => {
    expect(runs(daily(2, 0), BERLIN, '2026-03-28T12:00:00Z', 1)).toEqual(['2026-03-29T03:00:00.000+02:00']);
  });
});

describe('daily across a fall-back change: a time shown twice runs once, at its first showing', () => {
  const daily = (atHour: number, atMinute: number): TriggerSchedule => ({ type: 'daily', atHour, atMinute });

  test('America/New_York, 01:30 on 1 November 2026 (02:00 → 01:00)', () => {
    expect(runs(daily(1, 30), NEW_YORK, '2026-10-31T12:00:00Z', 3)).toEqual([
      '2026-11-01T01:30:00.000-04:00',
      '2026-11-02T01:30:00.000-05:00',
      '2026-11-03T01:30:00.000-05:00',
    ]);
  });

  test('Europe/Berlin, 02:30 on 25 October 2026 (03:00 → 02:00); 01:30 is shown once there', () => {
    expect(runs(daily(2, 30), BERLIN, '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T02:30:00.000+02:00',
      '2026-10-26T02:30:00.000+01:00',
    ]);
    expect(runs(daily(1, 30), BERLIN, '2026-10-24T12:00:00Z', 1)).toEqual(['2026-10-25T01:30:00.000+02:00']);
  });

  test('Australia/Sydney, 02:30 on 5 April 2026 (03:00 → 02:00)', () => {
    expect(runs(daily(2, 30), SYDNEY, '2026-04-04T12:00:00Z', 2)).toEqual([
      '2026-04-05T02:30:00.000+11:00',
      '2026-04-06T02:30:00.000+10:00',
    ]);
  });

  test('during the second showing, the run already made is not made again', () => {
    // 06:10Z is 01:10 EST, the second 01:10 of the day; today's 01:30 ran at 05:30Z (EDT).
    const during = at('2026-11-01T06:10:00Z');
    expect(localIso(nextRunAfter(daily(1, 30), NEW_YORK, during, null) as Date, NEW_YORK)).toBe(
      '2026-11-02T01:30:00.000-05:00',
    );
    expect(latestRunAtOrBefore(daily(1, 30), NEW_YORK, during, null)?.toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
  });
});

describe('monthly on a day the month lacks: the month’s last day', () => {
  const monthly = (dayOfMonth: number): TriggerSchedule => ({
    type: 'monthly',
    dayOfMonth,
    atHour: 9,
    atMinute: 0,
  });

  test('on the 31st: February (non-leap), March, April, May', () => {
    expect(runs(monthly(31), BERLIN, '2026-01-31T09:00:00+01:00', 4)).toEqual([
      '2026-02-28T09:00:00.000+01:00',
      '2026-03-31T09:00:00.000+02:00',
      '2026-04-30T09:00:00.000+02:00',
      '2026-05-31T09:00:00.000+02:00',
    ]);
  });

  test('on the 29th: February of a non-leap and of a leap year', () => {
    expect(runs(monthly(29), NEW_YORK, '2027-01-30T00:00:00Z', 2)).toEqual([
      '2027-02-28T09:00:00.000-05:00',
      '2027-03-29T09:00:00.000-04:00',
    ]);
    expect(runs(monthly(29), NEW_YORK, '2028-01-30T00:00:00Z', 2)).toEqual([
      '2028-02-29T09:00:00.000-05:00',
      '2028-03-29T09:00:00.000-04:00',
    ]);
  });

  test('on the 30th: February of a leap year, March, April', () => {
    expect(runs(monthly(30), SYDNEY, '2028-02-01T00:00:00Z', 3)).toEqual([
      '2028-02-29T09:00:00.000+11:00',
      '2028-03-30T09:00:00.000+11:00',
      '2028-04-30T09:00:00.000+10:00',
    ]);
  });

  test('the last due run before a day in March is February’s last day', () => {
    expect(
      localIso(latestRunAtOrBefore(monthly(31), BERLIN, at('2026-03-15T00:00:00Z'), null) as Date, BERLIN),
    ).toBe('2026-02-28T09:00:00.000+01:00');
  });
});

describe('weekly', () => {
  const monday: TriggerSchedule = { type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 };
  const sunday: TriggerSchedule = { type: 'weekly', weekday: 'sunday', atHour: 2, atMinute: 30 };

  test('the coming Monday, today’s if its time has not come, next week’s once it has', () => {
    expect(runs(monday, BERLIN, '2026-11-25T12:00:00Z', 2)).toEqual([
      '2026-11-30T08:30:00.000+01:00',
      '2026-12-07T08:30:00.000+01:00',
    ]);
    expect(runs(monday, BERLIN, '2026-11-30T08:29:00+01:00', 1)).toEqual(['2026-11-30T08:30:00.000+01:00']);
    expect(runs(monday, BERLIN, '2026-11-30T08:30:00+01:00', 1)).toEqual(['2026-12-07T08:30:00.000+01:00']);
  });

  test('Sunday ends the week: from a Monday it is six days away', () => {
    expect(runs(sunday, NEW_YORK, '2026-11-23T12:00:00Z', 2)).toEqual([
      '2026-11-29T02:30:00.000-05:00',
      '2026-12-06T02:30:00.000-05:00',
    ]);
  });

  test('a Sunday run on the spring-forward Sunday runs at the end of the gap', () => {
    expect(runs(sunday, BERLIN, '2026-03-23T00:00:00Z', 2)).toEqual([
      '2026-03-29T03:00:00.000+02:00',
      '2026-04-05T02:30:00.000+02:00',
    ]);
  });
});

describe('interval: absolute periods from the anchor, unmoved by DST', () => {
  const hourly: TriggerSchedule = { type: 'interval', intervalMinutes: 60, atHour: 9, atMinute: 0 };

  test('the anchor is the next atHour:atMinute after creation', () => {
    expect(firstRunAt(hourly, BERLIN, at('2026-03-28T06:00:00Z')).toISOString()).toBe(
      '2026-03-28T08:00:00.000Z',
    );
    expect(firstRunAt(hourly, BERLIN, at('2026-03-28T08:00:00Z')).toISOString()).toBe(
      '2026-03-29T07:00:00.000Z',
    );
  });

  test('24 hourly runs after 09:00 on the day before spring forward the wall clock shows 10:00', () => {
    const anchor = at('2026-03-28T08:00:00Z');
    const day = runs(hourly, BERLIN, '2026-03-28T07:59:00Z', 25, anchor);
    expect(day[0]).toBe('2026-03-28T09:00:00.000+01:00');
    expect(day[24]).toBe('2026-03-29T10:00:00.000+02:00');
  });

  test('every 30 minutes through the repeated hour of a fall back: every 30 minutes of real time', () => {
    const anchor = at('2026-11-01T04:00:00Z'); // 00:00 EDT
    const half: TriggerSchedule = { type: 'interval', intervalMinutes: 30, atHour: 0, atMinute: 0 };
    expect(runs(half, NEW_YORK, '2026-11-01T04:30:00Z', 4, anchor)).toEqual([
      '2026-11-01T01:00:00.000-04:00',
      '2026-11-01T01:30:00.000-04:00',
      '2026-11-01T01:00:00.000-05:00',
      '2026-11-01T01:30:00.000-05:00',
    ]);
  });

  test('before the anchor the first run is the anchor; nothing is due before it', () => {
    const anchor = at('2026-03-28T08:00:00Z');
    expect(nextRunAfter(hourly, BERLIN, at('2026-03-01T00:00:00Z'), anchor)).toEqual(anchor);
    expect(latestRunAtOrBefore(hourly, BERLIN, at('2026-03-28T07:59:59Z'), anchor)).toBeNull();
    expect(latestRunAtOrBefore(hourly, BERLIN, anchor, anchor)).toEqual(anchor);
  });

  test('an interval without its anchor is a bug, said so', () => {
    expect(() => nextRunAfter(hourly, BERLIN, at('2026-03-01T00:00:00Z'), null)).toThrow(/anchor/);
  });
});

describe('once', () => {
  const once = (date: string, atHour: number, atMinute: number): TriggerSchedule => ({
    type: 'once',
    date,
    atHour,
    atMinute,
  });

  test('in the past, or now, is refused with 400 naming schedule.date', () => {
    const now = at('2026-11-24T12:00:00Z');
    for (const schedule of [
      once('2026-11-24', 12, 59),
      once('2026-11-24', 13, 0),
      once('2025-01-01', 9, 0),
    ]) {
      let refused: unknown;
      try {
        firstRunAt(schedule, BERLIN, now);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('INVALID_REQUEST');
      expect((refused as AppError).status).toBe(400);
      expect((refused as AppError).message).toMatch(/schedule\.date/);
    }
  });

  test('in the future runs once, at its time in its zone', () => {
    const schedule = once('2026-11-24', 13, 1);
    const run = firstRunAt(schedule, BERLIN, at('2026-11-24T12:00:00Z'));
    expect(localIso(run, BERLIN)).toBe('2026-11-24T13:01:00.000+01:00');
    expect(nextRunAfter(schedule, BERLIN, run, null)).toBeNull();
    expect(latestRunAtOrBefore(schedule, BERLIN, at('2027-01-01T00:00:00Z'), null)).toEqual(run);
  });

  test('on a skipped time it runs at the end of the gap', () => {
    expect(
      localIso(firstRunAt(once('2026-03-08', 2, 30), NEW_YORK, at('2026-01-01T00:00:00Z')), NEW_YORK),
    ).toBe('2026-03-08T03:00:00.000-04:00');
  });
});

describe('catching up after long downtime: the last due run, computed directly', () => {
  test('every 5 minutes after 30 days down: the last of the 8,640 missed runs', () => {
    const schedule: TriggerSchedule = { type: 'interval', intervalMinutes: 5, atHour: 9, atMinute: 0 };
    const anchor = at('2026-10-01T07:00:00Z');
    const back = at('2026-10-31T07:02:30Z');
    expect(latestRunAtOrBefore(schedule, BERLIN, back, anchor)?.toISOString()).toBe(
      '2026-10-31T07:00:00.000Z',
    );
    expect(nextRunAfter(schedule, BERLIN, back, anchor)?.toISOString()).toBe('2026-10-31T07:05:00.000Z');
  });

  test('no loop over the periods: 200,000 years of 5-minute runs answer at once', () => {
    const schedule: TriggerSchedule = { type: 'interval', intervalMinutes: 5, atHour: 9, atMinute: 0 };
    const anchor = at('2026-10-01T07:00:00Z');
    const farAway = new Date(anchor.getTime() + 200_000 * 365 * 86_400_000 + 60_000);
    // A loop over 2 × 10^10 periods would not end within the test's timeout.
    expect(latestRunAtOrBefore(schedule, BERLIN, farAway, anchor)).toEqual(
      new Date(farAway.getTime() - 60_000),
    );
  });

  test('daily after 30 days down: today’s run if its time has passed, else yesterday’s', () => {
    const schedule: TriggerSchedule = { type: 'daily', atHour: 9, atMinute: 0 };
    expect(
      localIso(latestRunAtOrBefore(schedule, SYDNEY, at('2026-10-31T23:30:00Z'), null) as Date, SYDNEY),
    ).toBe('2026-11-01T09:00:00.000+11:00');
    expect(
      localIso(latestRunAtOrBefore(schedule, SYDNEY, at('2026-10-31T21:30:00Z'), null) as Date, SYDNEY),
    ).toBe('2026-10-31T09:00:00.000+11:00');
  });
});

describe('next and latest agree with each other through a whole year', () => {
  const schedules: TriggerSchedule[] = [
    { type: 'daily', atHour: 2, atMinute: 30 },
    { type: 'daily', atHour: 1, atMinute: 30 },
    { type: 'weekly', weekday: 'sunday', atHour: 2, atMinute: 15 },
    { type: 'monthly', dayOfMonth: 31, atHour: 0, atMinute: 0 },
  ];

  test.each([BERLIN, NEW_YORK, SYDNEY])('%s: latest ≤ t < next, and no run lies between them', (zone) => {
    const step = (25 * 60 + 7) * 60_000; // a day and 67 minutes: every day of the year at a drifting time
    for (const schedule of schedules) {
      for (let t = Date.parse('2026-01-01T00:00:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += step) {
        const now = new Date(t);
        const latest = latestRunAtOrBefore(schedule, zone, now, null) as Date;
        const next = nextRunAfter(schedule, zone, now, null) as Date;
        expect(latest.getTime()).toBeLessThanOrEqual(t);
        expect(next.getTime()).toBeGreaterThan(t);
        expect(nextRunAfter(schedule, zone, latest, null)).toEqual(next);
      }
    }
  });
});

describe('localIso', () => {
  test('the instant in the zone, with milliseconds and offset', () => {
    expect(localIso(at('2026-11-30T07:30:00Z'), BERLIN)).toBe('2026-11-30T08:30:00.000+01:00');
    expect(localIso(at('2026-06-30T07:30:00.123Z'), NEW_YORK)).toBe('2026-06-30T03:30:00.123-04:00');
  });
});
