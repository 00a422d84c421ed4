import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import type { IssuedTokenKind } from '@pag/contracts';
import { TOKEN_KIND_CODES, TOKEN_PATTERN } from '@pag/contracts';
import { TokenTags } from './token-tags.ts';

const KEY = 'a-token-tag-key-of-at-least-32-characters';
const tags = new TokenTags([KEY]);
const KINDS = Object.keys(TOKEN_KIND_CODES) as IssuedTokenKind[];

/** Replaces the character at `index` by another base64url character. */
function flip(token: string, index: number): string {
  const at = index < 0 ? token.length + index : index;
  const replacement = token[at] === 'A' ? 'B' : 'A';
  return `${token.slice(0, at)}${replacement}${token.slice(at + 1)}`;
}

describe('token tags', () => {
  test.each(KINDS)('a %s token carries its prefix and verifies', (kind) => {
    const token = tags.mint(kind);
    expect(token.startsWith(`pag_${TOKEN_KIND_CODES[kind]}_`)).toBe(true);
    expect(token).toHaveLength(72);
    expect(tags.read(token)).toEqual({ shape: 'tagged', kind });
  });

  test('the secret-scanner pattern matches every kind, in text around it, and nothing legacy', () => {
    const pattern = new RegExp(TOKEN_PATTERN, 'g');
    for (const kind of KINDS) {
      const token = tags.mint(kind);
      expect(`export PAG_TOKEN="${token}"\n`.match(pattern)).toEqual([token]);
    }
    expect('K2mZ3h-1vXq_7r0aPqL9sT4uW8yB6cD5eF1gH3iJ2kL'.match(pattern)).toBeNull();
  });

  test('the pattern published for operators is this one', async () => {
    const page = await readFile(new URL('../../../../docs/token-format.md', import.meta.url), 'utf8');
    expect(page).toContain(`\n${TOKEN_PATTERN}\n`);
    expect(page).toContain(`regex = '''\\b(${TOKEN_PATTERN})(?:[^A-Za-z0-9_-]|$)'''`);
  });

  test('a flipped character anywhere, a cut or an unknown kind is forged', () => {
    const token = tags.mint('dashboard');
    for (const index of [7, 20, 49, 50, 60, -2, -1])
      expect(tags.read(flip(token, index)).shape).toBe('forged');
    expect(tags.read(token.slice(0, -1)).shape).toBe('forged');
    expect(tags.read(`${token}A`).shape).toBe('forged');
    expect(tags.read(token.replace('pag_dt_', 'pag_zz_')).shape).toBe('forged');
    // The kind is under the tag: a dashboard token cannot pass for a refresh token.
    expect(tags.read(token.replace('pag_dt_', 'pag_rt_')).shape).toBe('forged');
    expect(tags.read(token.replace(/.$/, '+')).shape).toBe('forged');
  });

  test('a tag made with another key is forged; every key of the list verifies, the first mints', () => {
    const previous = new TokenTags(['the-previous-key-of-at-least-32-chars']);
    const rotated = new TokenTags([KEY, 'the-previous-key-of-at-least-32-chars']);
    const old = previous.mint('oauth');
    expect(tags.read(old).shape).toBe('forged');
    expect(rotated.read(old)).toEqual({ shape: 'tagged', kind: 'oauth' });
    expect(tags.read(rotated.mint('oauth')).shape).toBe('tagged');
  });

  test('a token without our prefix is legacy', () => {
    expect(tags.read('K2mZ3h-1vXq_7r0aPqL9sT4uW8yB6cD5eF1gH3iJ2kL').shape).toBe('legacy');
    expect(tags.read('').shape).toBe('legacy');
  });

  test('keys shorter than 32 characters, or none, are refused', () => {
    expect(() => new TokenTags([])).toThrow();
    expect(() => new TokenTags(['short'])).toThrow(/32/);
  });
});
