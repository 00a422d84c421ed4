import { randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { envSealingKey, openSecret, SealedSecretError, sealSecret } from './sealed-secret.ts';

const key = randomBytes(32);

describe('sealSecret / openSecret', () => {
  test('round-trips, with a fresh IV each time, and the value nowhere in the sealed text', () => {
    const a = sealSecret('sk-secret-value', key, 'account-1');
    const b = sealSecret('sk-secret-value', key, 'account-1');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^s1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(a).not.toContain('sk-secret');
    expect(openSecret(a, key, 'account-1')).toBe('sk-secret-value');
  });

  test('another binding, another key, a changed byte or another format fail loudly, without the secret', () => {
    const sealed = sealSecret('sk-secret-value', key, 'account-1');
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
    for (const attempt of [
      () => openSecret(sealed, key, 'account-2'),
      () => openSecret(sealed, randomBytes(32), 'account-1'),
      () => openSecret(flipped, key, 'account-1'),
      () => openSecret(`v1${sealed.slice(2)}`, key, 'account-1'),
    ]) {
      expect(attempt).toThrow(SealedSecretError);
      try {
        attempt();
      } catch (error) {
        expect(String((error as Error).message)).not.toContain('sk-secret');
      }
    }
    expect(() => sealSecret('x', randomBytes(16), 'a')).toThrow(SealedSecretError);
  });

  test('envSealingKey takes the base64 of 32 bytes only', () => {
    expect(envSealingKey.parse(key.toString('base64'))).toEqual(key);
    expect(envSealingKey.safeParse(randomBytes(16).toString('base64')).success).toBe(false);
    expect(envSealingKey.safeParse('not base64!').success).toBe(false);
  });
});
