/**
 * The one way a token is named outside the request that carries it: the hex SHA-256 of its value,
 * as caches key it and as TokenRevokedEvent names it. The token itself is never stored.
 */
import { createHash } from 'node:crypto';

export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
