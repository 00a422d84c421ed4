import { describe, expect, test } from '@jest/globals';
import { readConsentForm } from './consent-form.ts';

const ASKED = ['read', 'chat'];

describe('readConsentForm', () => {
  test('grants the ticked scopes of those asked, rejects the others, and ignores any other box', () => {
    expect(
      readConsentForm(
        { scope_read: 'on', scope_full: 'on', daily: ' 40 ', monthly: '', persona: 'p1' },
        ASKED,
      ),
    ).toEqual({
      decision: 'allow',
      granted: ['read'],
      rejected: ['chat'],
      dailyLimit: 40,
      monthlyLimit: null,
      personaId: 'p1',
    });
  });

  test('none ticked is a denial', () => {
    expect(readConsentForm({ scope_full: 'on', daily: 'x' }, ASKED)).toEqual({ decision: 'deny' });
  });

  test.each([
    ['0', '', 'The daily limit must be a whole number from 1 to 100000000.'],
    ['1.5', '', 'The daily limit must be a whole number from 1 to 100000000.'],
    ['', '999999999999', 'The monthly limit must be a whole number from 1 to 100000000.'],
  ])('a limit breaking the rule (%j, %j) is refused with what was entered', (daily, monthly, error) => {
    expect(readConsentForm({ scope_chat: 'on', daily, monthly }, ASKED)).toEqual({
      decision: 'refused',
      values: { scopes: ['chat'], daily, monthly, persona: '' },
      error,
    });
  });
});
