/**
 * How a record of oidc-provider is named in the database: HMAC-SHA-256 keyed by TOKEN_HASH_KEY.
 * For tokens and codes the record id is the token value itself, so a database copy without the
 * key holds nothing a client could present, nor anything to test guesses against.
 */
import { createHmac } from 'node:crypto';

export type RecordKey = (id: string) => string;

export function recordKey(tokenHashKey: string): RecordKey {
  return (id) => createHmac('sha256', tokenHashKey).update(id, 'utf8').digest('hex');
}
