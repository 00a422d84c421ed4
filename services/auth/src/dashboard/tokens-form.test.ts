import { describe, expect, test } from '@jest/globals';
import { ScopeCatalogue } from '@pag/contracts';
import { EMPTY_TOKEN_FORM, endOfDay, readTokenForm, SCOPE_CHOICES, tokenRequest } from './tokens-form.ts';

describe('the scope checkboxes', () => {
  test('offer every catalogue scope without a name to fill, each under its own field', () => {
    expect(SCOPE_CHOICES.map((choice) => choice.scope)).toEqual(
      Object.keys(ScopeCatalogue).filter((scope) => !scope.includes('{')),
    );
    const fields = SCOPE_CHOICES.map((choice) => choice.field);
    expect(new Set(fields).size).toBe(fields.length);
    for (const field of fields) expect(field).toMatch(/^scope-[a-z-]+$/);
  });
});

describe('endOfDay', () => {
  test('a token "expiring on" a day works through it, in UTC', () => {
    expect(endOfDay('2028-02-29')).toEqual(new Date('2028-03-01T00:00:00.000Z'));
    expect(endOfDay('2027-12-31')).toEqual(new Date('2028-01-01T00:00:00.000Z'));
    expect(endOfDay(' ')).toBeNull();
  });

  test.each(['2027-02-29', '2027-13-01', '27-01-01', '2027-1-1', 'tomorrow'])('%s is not a date', (text) => {
    expect(() => endOfDay(text, '--expires')).toThrow('--expires must be a date written YYYY-MM-DD.');
  });
});

describe('tokenRequest', () => {
  test('reads checked scopes, service scopes per name and access, limits and expiry', () => {
    const form = readTokenForm({
      name: 'Bot',
      'scope-services-all': 'on',
      'scope-knowledge': 'on',
      services: 'github, calendar',
      resource: 'events',
      'service-read': 'on',
      daily: ' 10 ',
      monthly: '',
      expires: '2030-01-01',
    });
    expect(tokenRequest(form)).toEqual({
      name: 'Bot',
      scopes: ['knowledge', 'services:*', 'services:github:events:read', 'services:calendar:events:read'],
      dailyLimit: 10,
      monthlyLimit: null,
      expiresAt: new Date('2030-01-02T00:00:00.000Z'),
    });
  });

  test('a limit that is not a whole number is left for the store to refuse (NaN)', () => {
    expect(tokenRequest({ ...EMPTY_TOKEN_FORM, daily: '1.5', monthly: '-3' })).toMatchObject({
      dailyLimit: Number.NaN,
      monthlyLimit: Number.NaN,
    });
  });

  test.each([
    [{ services: 'github' }, 'Choose read, write or both for the services you named.'],
    [{ serviceRead: true }, 'Name the connected service the read or write access is for.'],
    [{ resource: 'events' }, 'Name the connected service the read or write access is for.'],
    [{ services: 'git hub!', serviceRead: true }, '"hub!" is not a service or resource name'],
    [
      { services: 'github', resource: 'Events', serviceRead: true },
      '"Events" is not a service or resource name',
    ],
  ])('%j is refused naming the mistake', (values, message) => {
    expect(() => tokenRequest({ ...EMPTY_TOKEN_FORM, ...values })).toThrow(message);
  });
});
