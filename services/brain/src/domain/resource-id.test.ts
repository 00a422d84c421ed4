/**
 * The brain's ids: prefix, 22 base64url characters, valid ResourceIds, and never the same twice,
 * across refills of the random pool included.
 */
import { describe, expect, test } from '@jest/globals';
import { MemoryEntry } from '@pag/contracts';
import { ID_PREFIXES, newId } from './resource-id.ts';

describe('newId', () => {
  test('each kind: its prefix and 16 random bytes in base64url, a valid ResourceId (as MemoryEntry.id)', () => {
    for (const [kind, prefix] of Object.entries(ID_PREFIXES) as [keyof typeof ID_PREFIXES, string][]) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${prefix}_[A-Za-z0-9_-]{22}$`));
      expect(Buffer.from(id.slice(prefix.length + 1), 'base64url')).toHaveLength(16);
      expect(MemoryEntry.shape.id.safeParse(id).success).toBe(true);
    }
  });

  test('ten thousand ids (many fills of the pool), no two alike, no two sharing their bytes', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('memory'));
    expect(new Set(ids).size).toBe(ids.length);
    // Overlapping slices of the pool would share halves: no 8-byte half appears twice.
    const halves = ids.flatMap((id) => [id.slice(4, 15), id.slice(15)]);
    expect(new Set(halves).size).toBe(halves.length);
  });
});
