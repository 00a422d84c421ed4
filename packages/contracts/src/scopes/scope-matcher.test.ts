import { describe, expect, test } from '@jest/globals';
import { describeScope, ScopeCatalogue } from './scope-catalogue.ts';
import { expandScopes, missingScope, scopeGrants } from './scope-matcher.ts';

const every = (granted: string[], required: string[]) => required.map((scope) => scopeGrants(granted, scope));

describe('scopeGrants: the hierarchy', () => {
  test('full contains everything', () => {
    const required = [
      'full',
      'knowledge',
      'chat',
      'read',
      'professional',
      'availability',
      'services:*',
      'services:read',
      'services:github:read',
      'services:github:write',
      'services:github:repos:write',
    ];
    expect(every(['full'], required)).toEqual(required.map(() => true));
  });

  test('services:* contains read and write of every service and their sub-scopes', () => {
    expect(
      every(
        ['services:*'],
        ['services:github:read', 'services:github:write', 'services:gmail:inbox:write', 'services:read'],
      ),
    ).toEqual([true, true, true, true]);
    expect(every(['services:*'], ['knowledge', 'chat', 'full', 'read'])).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  test('services:{name}:read contains its read sub-scopes, not its write ones', () => {
    expect(every(['services:github:read'], ['services:github:read', 'services:github:repos:read'])).toEqual([
      true,
      true,
    ]);
    expect(every(['services:github:read'], ['services:github:write', 'services:github:repos:write'])).toEqual(
      [false, false],
    );
  });

  test('services:{name}:write contains its write sub-scopes', () => {
    expect(scopeGrants(['services:github:write'], 'services:github:issues:write')).toBe(true);
  });

  test('write does not imply read', () => {
    expect(scopeGrants(['services:github:write'], 'services:github:read')).toBe(false);
    expect(scopeGrants(['services:github:repos:write'], 'services:github:repos:read')).toBe(false);
  });

  test('services:read reads every service but writes none', () => {
    expect(
      every(['services:read'], ['services:github:read', 'services:gmail:inbox:read', 'availability']),
    ).toEqual([true, true, true]);
    expect(
      every(['services:read'], ['services:github:write', 'services:gmail:inbox:write', 'services:*']),
    ).toEqual([false, false, false]);
  });

  test("one service's scope grants nothing on another", () => {
    expect(scopeGrants(['services:github:read'], 'services:gitlab:read')).toBe(false);
    expect(scopeGrants(['services:github:read'], 'services:gitlab:repos:read')).toBe(false);
    expect(scopeGrants(['services:calendar:availability:read'], 'services:calendar:events:read')).toBe(false);
  });

  test('a sub-scope never implies its parent', () => {
    expect(scopeGrants(['services:github:repos:read'], 'services:github:read')).toBe(false);
    expect(scopeGrants(['services:github:read', 'services:gitlab:read'], 'services:read')).toBe(false);
  });

  test('knowledge and chat are separate from each other and from services', () => {
    expect(every(['knowledge'], ['knowledge', 'chat', 'services:read'])).toEqual([true, false, false]);
    expect(every(['chat'], ['chat', 'knowledge'])).toEqual([true, false]);
  });
});

describe('scopeGrants: the handshake bundles', () => {
  test('read is the knowledge base and every service, read only', () => {
    expect(
      every(
        ['read'],
        [
          'knowledge',
          'services:read',
          'services:x:read',
          'services:x:y:read',
          'availability',
          'professional',
        ],
      ),
    ).toEqual([true, true, true, true, true, true]);
    expect(every(['read'], ['chat', 'services:x:write', 'services:*', 'full'])).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  test('professional is the profile resource of the connectors that have one', () => {
    expect(
      every(
        ['professional'],
        ['services:github:user:read', 'services:microsoft-365:profile:read', 'services:slack:profile:read'],
      ),
    ).toEqual([true, true, true]);
    expect(
      every(
        ['professional'],
        [
          'services:github:read',
          'services:github:user:write',
          'services:github:repos:read',
          'knowledge',
          'read',
        ],
      ),
    ).toEqual([false, false, false, false, false]);
  });

  test('availability is the free/busy resource of the calendars', () => {
    expect(
      every(
        ['availability'],
        ['services:google-calendar:freebusy:read', 'services:microsoft-365:schedule:read'],
      ),
    ).toEqual([true, true]);
    expect(
      every(['availability'], ['services:google-calendar:read', 'services:google-calendar:calendars:read']),
    ).toEqual([false, false]);
  });

  test('a bundle is granted by its parts', () => {
    expect(scopeGrants(['knowledge', 'services:read'], 'read')).toBe(true);
    expect(scopeGrants(['services:read'], 'read')).toBe(false);
  });
});

describe('scopeGrants: what grants nothing', () => {
  test('unknown and malformed granted scopes grant nothing', () => {
    expect(scopeGrants(['admin', 'services:*:read', 'Full', '*'], 'services:github:read')).toBe(false);
    expect(scopeGrants([], 'chat')).toBe(false);
  });

  test('scopes are case-sensitive', () => {
    expect(scopeGrants(['FULL'], 'chat')).toBe(false);
    expect(scopeGrants(['services:GitHub:read'], 'services:github:read')).toBe(false);
    expect(scopeGrants(['full'], 'services:GitHub:read')).toBe(false);
  });

  test('a malformed required scope is never granted, not even by full', () => {
    expect(scopeGrants(['full'], 'admin')).toBe(false);
    expect(scopeGrants(['full'], '')).toBe(false);
  });
});

describe('missingScope', () => {
  test('names the first scope not granted', () => {
    expect(missingScope(['knowledge'], ['knowledge', 'chat', 'services:read'])).toBe('chat');
    expect(missingScope(['services:read'], 'services:github:write')).toBe('services:github:write');
  });

  test('null when everything is granted or nothing is required', () => {
    expect(missingScope(['full'], ['chat', 'services:x:write'])).toBeNull();
    expect(missingScope([], null)).toBeNull();
    expect(missingScope([], [])).toBeNull();
  });
});

describe('expandScopes', () => {
  test('full expands to every fixed scope and both service patterns', () => {
    expect(expandScopes(['full'])).toEqual([
      'full',
      'knowledge',
      'chat',
      'read',
      'professional',
      'availability',
      'services:*',
      'services:read',
      'services:*:*:read',
      'services:*:*:write',
      'services:*:read',
      'services:*:write',
    ]);
  });

  test('read expands to its parts as patterns', () => {
    expect(expandScopes(['read'])).toEqual([
      'knowledge',
      'read',
      'professional',
      'availability',
      'services:read',
      'services:*:*:read',
      'services:*:read',
    ]);
  });

  test('a service scope shows its sub-scopes as a pattern', () => {
    expect(expandScopes(['services:github:read', 'chat'])).toEqual([
      'chat',
      'services:github:*:read',
      'services:github:read',
    ]);
  });

  test('availability and professional show their resource patterns', () => {
    expect(expandScopes(['availability'])).toEqual([
      'availability',
      'services:google-calendar:freebusy:read',
      'services:microsoft-365:schedule:read',
    ]);
    expect(expandScopes(['professional'])).toEqual([
      'professional',
      'services:github:user:read',
      'services:microsoft-365:profile:read',
      'services:slack:profile:read',
    ]);
  });

  test('drops what is not a scope', () => {
    expect(expandScopes(['Admin', 'services:*:read'])).toEqual([]);
  });
});

describe('ScopeCatalogue', () => {
  test('every entry has one line of text', () => {
    for (const [scope, entry] of Object.entries(ScopeCatalogue)) {
      expect(`${scope}: ${entry.description}`).not.toMatch(/\n/);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });

  test('describeScope fills the names of a concrete scope', () => {
    expect(describeScope('services:github:read')).toBe(
      'Read the connected service github, all of its resources.',
    );
    expect(describeScope('services:calendar:availability:read')).toBe(
      'Read the availability resource of the connected service calendar.',
    );
    expect(describeScope('chat')).toBe(ScopeCatalogue.chat.description);
    expect(describeScope('nope')).toBeNull();
  });
});

describe('scopeGrants: the permissions of scope strings are kept (docs/adr/0074)', () => {
  test('another token’s scopes are decided on their own at the very next call', () => {
    expect(scopeGrants(['services:github:read'], 'services:github:read')).toBe(true);
    expect(scopeGrants(['services:slack:read'], 'services:github:read')).toBe(false);
    expect(scopeGrants(['services:github:write'], 'services:github:read')).toBe(false);
    expect(scopeGrants(['services:github:read'], 'services:github:issues:read')).toBe(true);
    expect(scopeGrants([], 'services:github:read')).toBe(false);
  });

  test('past the memory’s bound (2,000 scope strings) every answer stays right', () => {
    for (let i = 0; i < 2_500; i += 1) {
      const service = `svc${i}`;
      expect(scopeGrants([`services:${service}:read`], `services:${service}:read`)).toBe(true);
      expect(scopeGrants([`services:${service}:read`], `services:${service}:write`)).toBe(false);
    }
    expect(scopeGrants(['services:svc0:read'], 'services:svc0:read')).toBe(true);
    expect(scopeGrants(['not a scope'], 'services:svc0:read')).toBe(false);
    expect(scopeGrants(['full'], 'not a scope')).toBe(false);
  });
});
