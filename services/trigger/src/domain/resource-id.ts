/**
 * Identifiers of the trigger service's records: a prefix naming the kind and 16 random bytes in
 * base64url, e.g. `trg_3q2-7wYb…`. They fit the contracts' ResourceId and say nothing about when
 * or by whom a record was made. (Triggers and runs are made a few times a minute, not per
 * request: one randomBytes call each is fine.)
 */
import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = { trigger: 'trg', run: 'run' } as const;

export function newId(kind: keyof typeof ID_PREFIXES): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(16).toString('base64url')}`;
}
