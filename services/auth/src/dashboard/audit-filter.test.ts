import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { EMPTY_FILTER, filterSearch, filterValues, parseAuditFilter, readTime } from './audit-filter.ts';

const parse = (values: Partial<typeof EMPTY_FILTER>, before = '') =>
  parseAuditFilter({ ...EMPTY_FILTER, ...values }, before);

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, message: error.message } : error;
  }
  return 'accepted';
};

describe('the audit filter', () => {
  test('empty fields and "any" filter nothing', () => {
    expect(parse({})).toEqual({ filter: {}, before: undefined });
    expect(parse({ agent: 'any', decision: 'any' })).toEqual({ filter: {}, before: undefined });
  });

  test('each field means its part of the query', () => {
    expect(
      parse(
        {
          agent: 'agt_1',
          status: '4XX',
          decision: 'denied',
          path: '/api/v1/memory',
          from: '2026-11-20',
          to: '2026-11-21',
        },
        '120',
      ),
    ).toEqual({
      filter: {
        agentId: 'agt_1',
        status: '4xx',
        decision: 'denied',
        pathPrefix: '/api/v1/memory',
        since: '2026-11-20T00:00:00.000Z',
        // A date alone is the whole day: until the next one begins.
        until: '2026-11-22T00:00:00.000Z',
      },
      before: 120,
    });
    expect(parse({ status: '404' }).filter).toEqual({ status: 404 });
  });

  test('times are UTC unless they name an offset; a time of day is taken as it is', () => {
    expect(readTime('2026-11-24T09:30', 'From', false)).toBe('2026-11-24T09:30:00.000Z');
    expect(readTime('2026-11-24T09:30', 'To', true)).toBe('2026-11-24T09:30:00.000Z');
    expect(readTime('2026-11-24 09:30:15.5', 'From', false)).toBe('2026-11-24T09:30:15.500Z');
    expect(readTime('2026-11-24T09:30+02:00', 'From', false)).toBe('2026-11-24T07:30:00.000Z');
  });

  test('a value that means nothing is INVALID_REQUEST naming the field', () => {
    const cases: [Partial<typeof EMPTY_FILTER>, string][] = [
      [{ status: '99' }, 'Status'],
      [{ status: '600' }, 'Status'],
      [{ status: 'bad' }, 'Status'],
      [{ decision: 'maybe' }, 'Decision'],
      [{ path: 'api/v1' }, 'path prefix'],
      [{ path: `/${'x'.repeat(500)}` }, 'path prefix'],
      [{ from: 'yesterday' }, 'From'],
      [{ to: '2026-02-30' }, 'To'],
      [{ from: '2026-11-24T25:00' }, 'From'],
      [{ from: '2026-11-24', to: '2026-11-23' }, 'From must be earlier'],
      [{ agent: 'a'.repeat(201) }, 'agent'],
    ];
    for (const [values, named] of cases)
      expect(refusal(() => parse(values))).toEqual({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining(named),
      });
    for (const before of ['0', '-3', 'x', '1e3'])
      expect(refusal(() => parse({}, before))).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  test('values come from the query as typed, once each; links carry only what was given', () => {
    const values = filterValues({ agent: ['agt_1', 'agt_2'], status: ' 5xx ', path: undefined, other: 'x' });
    expect(values).toEqual({ ...EMPTY_FILTER, agent: 'agt_1', status: '5xx' });
    expect(filterSearch(values)).toBe('?agent=agt_1&status=5xx');
    expect(filterSearch({ ...EMPTY_FILTER, agent: 'any', path: '/a b&c' }, 42)).toBe(
      '?path=%2Fa+b%26c&before=42',
    );
    expect(filterSearch(EMPTY_FILTER)).toBe('');
  });
});
