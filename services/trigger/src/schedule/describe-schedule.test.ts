import { describe, expect, test } from '@jest/globals';
import { describeSchedule } from './describe-schedule.ts';

describe('describeSchedule', () => {
  test('each type in words, with its time zone', () => {
    expect(
      describeSchedule({ type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 }, 'Europe/Berlin'),
    ).toBe('every Monday at 08:30 (Europe/Berlin)');
    expect(describeSchedule({ type: 'daily', atHour: 2, atMinute: 5 }, 'America/New_York')).toBe(
      'every day at 02:05 (America/New_York)',
    );
    expect(
      describeSchedule({ type: 'once', date: '2026-12-24', atHour: 18, atMinute: 0 }, 'Australia/Sydney'),
    ).toBe('once on 2026-12-24 at 18:00 (Australia/Sydney)');
    expect(describeSchedule({ type: 'monthly', dayOfMonth: 15, atHour: 9, atMinute: 0 }, 'UTC')).toBe(
      'every month on day 15 at 09:00 (UTC)',
    );
  });

  test('a day some months lack says where it runs instead', () => {
    expect(describeSchedule({ type: 'monthly', dayOfMonth: 31, atHour: 9, atMinute: 0 }, 'UTC')).toBe(
      'every month on day 31 (or its last day) at 09:00 (UTC)',
    );
  });

  test('an interval in its largest whole unit, from its first time', () => {
    const every = (intervalMinutes: number) =>
      describeSchedule({ type: 'interval', intervalMinutes, atHour: 7, atMinute: 0 }, 'Europe/Berlin');
    expect(every(5)).toBe('every 5 minutes from 07:00 (Europe/Berlin)');
    expect(every(60)).toBe('every hour from 07:00 (Europe/Berlin)');
    expect(every(90)).toBe('every 90 minutes from 07:00 (Europe/Berlin)');
    expect(every(120)).toBe('every 2 hours from 07:00 (Europe/Berlin)');
    expect(every(1440)).toBe('every day from 07:00 (Europe/Berlin)');
    expect(every(10_080)).toBe('every 7 days from 07:00 (Europe/Berlin)');
  });
});
