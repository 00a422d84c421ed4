import { describe, expect, test } from '@jest/globals';
import { firstMissingScope, narrowedScopes, requiredScopes } from './required-scopes.ts';

describe('requiredScopes', () => {
  test('chat and the read scope of each service', () => {
    expect(requiredScopes(['github', 'slack'])).toEqual([
      'chat',
      'services:github:read',
      'services:slack:read',
    ]);
  });

  test('a chat-only token misses the service scope, named', () => {
    expect(firstMissingScope(['chat'], ['github'])).toBe('services:github:read');
    expect(firstMissingScope(['read'], [])).toBe('chat');
  });

  test('full, services:read and the service scope cover a service', () => {
    expect(firstMissingScope(['full'], ['github'])).toBeUndefined();
    expect(firstMissingScope(['chat', 'services:read'], ['github'])).toBeUndefined();
    expect(firstMissingScope(['chat', 'services:github:read'], ['github'])).toBeUndefined();
    expect(firstMissingScope(['chat', 'services:github:user:read'], ['github'])).toBe('services:github:read');
  });
});

describe('narrowedScopes', () => {
  test('never more than the trigger was made with', () => {
    expect(narrowedScopes(['chat', 'services:github:read'], ['full'])).toEqual([
      'chat',
      'services:github:read',
    ]);
  });

  test('never more than the agent holds now', () => {
    expect(narrowedScopes(['full'], ['chat'])).toEqual(['chat']);
    expect(narrowedScopes(['chat', 'services:github:read'], ['chat'])).toEqual(['chat']);
    expect(narrowedScopes(['chat'], [])).toEqual([]);
  });
});
