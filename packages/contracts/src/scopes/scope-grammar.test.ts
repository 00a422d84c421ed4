import { describe, expect, test } from '@jest/globals';
import { AppError } from '../errors.ts';
import { isScope, parseScope, parseScopeList } from './scope-grammar.ts';

describe('parseScope', () => {
  test.each(['full', 'knowledge', 'chat', 'read', 'professional', 'availability'])(
    'accepts the named scope %s',
    (s) => {
      expect(parseScope(s)).toEqual({ scope: s, kind: s });
    },
  );

  test('parses the service forms', () => {
    expect(parseScope('services:*')).toEqual({
      scope: 'services:*',
      kind: 'services',
      service: null,
      resource: null,
      access: null,
    });
    expect(parseScope('services:read')).toMatchObject({ service: null, resource: null, access: 'read' });
    expect(parseScope('services:github:write')).toMatchObject({
      service: 'github',
      resource: null,
      access: 'write',
    });
    expect(parseScope('services:google-calendar:availability:read')).toMatchObject({
      service: 'google-calendar',
      resource: 'availability',
      access: 'read',
    });
    expect(parseScope('services:m365_mail:0inbox:write')).toMatchObject({
      service: 'm365_mail',
      resource: '0inbox',
    });
  });

  test('a service may be called read: the number of parts decides', () => {
    expect(parseScope('services:read:read')).toMatchObject({ service: 'read', access: 'read' });
  });

  test.each([
    '',
    'Full',
    'FULL',
    'Services:read',
    'services:GitHub:read',
    'services:github:Read',
    'services:github:READ',
    'services',
    'services:',
    'services:write',
    'services:github',
    'services:github:admin',
    'services:*:read',
    'services:github:*:read',
    'services:*:*',
    'services:-github:read',
    'services:_x:read',
    'services:git hub:read',
    'services:github:read:',
    'services:github:repos:issues:read',
    'services::read',
    ' knowledge',
    'knowledge ',
    'openid',
    'admin',
    `services:${'a'.repeat(65)}:read`,
  ])('rejects %j', (s) => {
    expect(isScope(s)).toBe(false);
    expect(() => parseScope(s)).toThrow(AppError);
  });

  test('the error is INVALID_SCOPE with status 400', () => {
    const error = (() => {
      try {
        parseScope('services:GitHub:read');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toMatchObject({ code: 'INVALID_SCOPE', status: 400 });
  });

  test('names may be 64 characters long', () => {
    expect(isScope(`services:${'a'.repeat(64)}:read`)).toBe(true);
  });
});

describe('parseScopeList', () => {
  test('splits on spaces and keeps the first occurrence of each scope', () => {
    expect(parseScopeList('knowledge chat  services:github:read knowledge')).toEqual([
      'knowledge',
      'chat',
      'services:github:read',
    ]);
  });

  test('an empty list is no scopes', () => {
    expect(parseScopeList('')).toEqual([]);
    expect(parseScopeList('  ')).toEqual([]);
  });

  test('names every invalid entry', () => {
    expect(() => parseScopeList('chat Admin services:x')).toThrow(/"Admin", "services:x"/);
  });

  test('only the space separates: tabs and commas are not separators', () => {
    expect(() => parseScopeList('chat\tknowledge')).toThrow(AppError);
    expect(() => parseScopeList('chat,knowledge')).toThrow(AppError);
  });
});
