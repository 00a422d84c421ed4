import { expect, test } from '@jest/globals';
import { agentStanding } from './agent-rules.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');

test.each([
  ['active without expiry', { status: 'active', expiresAt: null }, 'active'],
  ['active, expiring later', { status: 'active', expiresAt: new Date('2026-11-24T12:00:00.001Z') }, 'active'],
  ['active on the row, expiring now', { status: 'active', expiresAt: NOW }, 'expired'],
  [
    'active on the row, expired before',
    { status: 'active', expiresAt: new Date('2026-01-01T00:00:00Z') },
    'expired',
  ],
  ['revoked, expired too', { status: 'revoked', expiresAt: new Date('2026-01-01T00:00:00Z') }, 'revoked'],
  ['revoked', { status: 'revoked', expiresAt: null }, 'revoked'],
] as const)('agentStanding: %s', (_name, agent, standing) => {
  expect(agentStanding(agent, NOW)).toBe(standing);
});
