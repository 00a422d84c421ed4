import { describe, expect, test } from '@jest/globals';
import { isMalformedToken } from './token-format.ts';
import {
  expiredTokenHint,
  handshakeCanGrant,
  insufficientScopeHint,
  revokedTokenHint,
  tokenKindOf,
  unknownTokenHint,
} from './token-remedies.ts';

const ours = (code: string) => `pag_${code}_${'A'.repeat(65)}`;

describe('token kinds and shapes from the text', () => {
  test('the prefix names the kind; anything else is not ours', () => {
    expect(tokenKindOf(ours('at'))).toBe('oauth');
    expect(tokenKindOf(ours('dv'))).toBe('device');
    expect(tokenKindOf(ours('ht'))).toBe('handshake');
    expect(tokenKindOf(ours('dt'))).toBe('dashboard');
    expect(tokenKindOf(ours('rt'))).toBe('refresh');
    expect(tokenKindOf('legacy-token-without-prefix')).toBeUndefined();
  });

  test('a text with our prefix but not our shape is malformed; a legacy text is not', () => {
    expect(isMalformedToken(ours('at'))).toBe(false);
    expect(isMalformedToken(ours('at').slice(0, -1))).toBe(true);
    expect(isMalformedToken(`${ours('at')}x`)).toBe(true);
    expect(isMalformedToken(ours('zz'))).toBe(true);
    expect(isMalformedToken(ours('at').replace('A', '+'))).toBe(true);
    expect(isMalformedToken('an-old-opaque-token')).toBe(false);
  });
});

describe('the remedy per kind', () => {
  test('expired: refresh OAuth, sign again for a device, a handshake or the owner otherwise', () => {
    expect(expiredTokenHint('oauth')).toContain('grant_type=refresh_token');
    expect(expiredTokenHint('oauth')).not.toContain('handshake');
    expect(expiredTokenHint('device')).toContain('Sign a new Ed25519 assertion');
    expect(expiredTokenHint('device')).toContain('POST /oauth/token');
    expect(expiredTokenHint('handshake')).toContain('POST /api/v1/handshakes');
    expect(expiredTokenHint('dashboard')).toContain('/dashboard/tokens');
    expect(expiredTokenHint(undefined)).toBeUndefined();
  });

  test('revoked: never "retry", the owner decides', () => {
    for (const kind of ['oauth', 'device', 'handshake', 'dashboard'] as const)
      expect(revokedTokenHint(kind)).toMatch(/^The owner revoked this token\. .*Do not retry/);
    expect(revokedTokenHint(undefined)).toBeUndefined();
  });

  test('a refresh token presented as a bearer token is told to exchange it', () => {
    expect(unknownTokenHint('refresh')).toContain('exchange it at POST /oauth/token');
  });

  test('a scope a handshake cannot request: said so, and where the owner issues it', () => {
    expect(handshakeCanGrant('chat')).toBe(false);
    expect(handshakeCanGrant('knowledge')).toBe(true);
    for (const kind of ['handshake', 'dashboard', 'device', undefined] as const) {
      const hint = insufficientScopeHint('chat', kind);
      expect(hint).toContain('A handshake cannot grant chat');
      expect(hint).toContain('/dashboard/tokens');
    }
    expect(insufficientScopeHint('chat', 'oauth')).toContain('consent to it through OAuth');
  });

  test('a scope a handshake can bring: which scope to request, or OAuth for an OAuth client', () => {
    expect(insufficientScopeHint('knowledge', 'handshake')).toContain(
      'a new handshake (POST /api/v1/handshakes) requesting read',
    );
    expect(insufficientScopeHint('services:github:user:read', 'dashboard')).toContain(
      'requesting read or professional',
    );
    expect(insufficientScopeHint('knowledge', 'oauth')).toContain('scope=knowledge');
  });
});
