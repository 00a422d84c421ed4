/**
 * Identifiers of the brain's records: a prefix naming the kind and 16 random bytes in base64url
 * (22 characters), e.g. `mem_3q2-7wYb…`. They fit the contracts' ResourceId (letters, digits,
 * "_" and "-") and say nothing about when or by whom a record was made.
 */
import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  memory: 'mem',
  persona: 'per',
  document: 'doc',
  conversation: 'conv',
  message: 'msg',
} as const;

export function newId(kind: keyof typeof ID_PREFIXES): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(16).toString('base64url')}`;
}
