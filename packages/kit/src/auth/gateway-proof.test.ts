import { describe, expect, test } from '@jest/globals';
import { MAX_SKEW_SECONDS, signGatewayRequest, verifyGatewayRequest } from './gateway-proof.ts';

const SECRET = 'a-deployment-secret-of-32-characters!';
const REQUEST = { method: 'POST', path: '/oauth/token?x=1', requestId: 'req-1' };
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

describe('the gateway proof', () => {
  test('verifies what it signed, within the allowed clock skew either way', () => {
    for (const skew of [0, MAX_SKEW_SECONDS, -MAX_SKEW_SECONDS]) {
      const header = signGatewayRequest(SECRET, REQUEST, NOW + skew * 1000);
      expect(verifyGatewayRequest(SECRET, REQUEST, header, NOW)).toBe('valid');
    }
  });

  test('names why it refuses: missing, malformed, expired, or signed for something else', () => {
    const header = signGatewayRequest(SECRET, REQUEST, NOW);
    expect(verifyGatewayRequest(SECRET, REQUEST, undefined, NOW)).toBe('missing');
    expect(verifyGatewayRequest(SECRET, REQUEST, '', NOW)).toBe('missing');
    expect(verifyGatewayRequest(SECRET, REQUEST, SECRET, NOW)).toBe('malformed');
    expect(verifyGatewayRequest(SECRET, REQUEST, `${header}x`, NOW)).toBe('malformed');
    const late = NOW + (MAX_SKEW_SECONDS + 1) * 1000;
    expect(verifyGatewayRequest(SECRET, REQUEST, header, late)).toBe('expired');
    const early = NOW - (MAX_SKEW_SECONDS + 1) * 1000;
    expect(verifyGatewayRequest(SECRET, REQUEST, header, early)).toBe('expired');
    for (const other of [
      { ...REQUEST, method: 'GET' },
      { ...REQUEST, path: '/oauth/token?x=2' },
      { ...REQUEST, requestId: 'req-2' },
    ])
      expect(verifyGatewayRequest(SECRET, other, header, NOW)).toBe('mismatch');
    expect(verifyGatewayRequest(`${SECRET}?`, REQUEST, header, NOW)).toBe('mismatch');
    // The time is part of what is signed: moving it forward breaks the signature.
    const moved = header.replace(/^t=(\d+)/, (_all, t: string) => `t=${Number(t) + 30}`);
    expect(verifyGatewayRequest(SECRET, REQUEST, moved, NOW)).toBe('mismatch');
  });
});
