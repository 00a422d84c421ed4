/**
 * A new ID-token signing key: ECDSA P-256 (ES256, which every OpenID client library verifies),
 * made with node:crypto, named by its RFC 7638 thumbprint so the kid follows from the key.
 */

import type { JsonWebKey } from 'node:crypto';
import { createHash, generateKeyPairSync } from 'node:crypto';

export const SIGNING_ALG = 'ES256';

export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: typeof SIGNING_ALG;
  use: 'sig';
}

export function jwkThumbprint(jwk: JsonWebKey): string {
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(members).digest('base64url');
}

export function generateSigningJwk(): SigningJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: jwkThumbprint(jwk), alg: SIGNING_ALG, use: 'sig' };
}
