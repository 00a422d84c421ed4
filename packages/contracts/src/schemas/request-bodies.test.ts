import { describe, expect, test } from '@jest/globals';
import { DeviceRegisterRequest, HandshakeCreateRequest } from './auth.ts';
import { ChatRequest, MemoryWriteRequest } from './brain.ts';
import { displayName, isTimeZone, NAME_CHARACTERS_MESSAGE } from './common.ts';
import { TriggerCreateRequest } from './trigger.ts';

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues.map((issue) => issue.path.join('.')) ?? [];

describe('HandshakeCreateRequest', () => {
  const valid = { agentId: 'claude@alice-laptop', requestedScopes: ['read'], message: 'Hello, I am Claude.' };

  test('accepts a valid request', () => {
    expect(HandshakeCreateRequest.parse(valid)).toEqual(valid);
  });

  test('rejects unknown fields, naming them', () => {
    const result = HandshakeCreateRequest.safeParse({ ...valid, scopes: ['full'] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['scopes'] });
  });

  test.each([
    [{ agentId: '' }, 'agentId'],
    [{ agentId: 'a'.repeat(129) }, 'agentId'],
    [{ agentId: 'bad id' }, 'agentId'],
    [{ agentId: '-starts-with-dash' }, 'agentId'],
    [{ agentId: 'x<script>' }, 'agentId'],
    [{ requestedScopes: [] }, 'requestedScopes'],
    [{ requestedScopes: ['full'] }, 'requestedScopes.0'],
    [{ requestedScopes: ['read', 'read'] }, 'requestedScopes'],
    [{ message: '' }, 'message'],
    [{ message: 'x'.repeat(501) }, 'message'],
    [{ message: 'bell\u0007' }, 'message'],
    [{ message: 'nul\u0000' }, 'message'],
    [{ message: 'unpaired \ud800 surrogate' }, 'message'],
  ])('rejects %j at %s', (change, path) => {
    expect(issuePaths(HandshakeCreateRequest.safeParse({ ...valid, ...change }))).toContain(path);
  });

  test('limits agentId to 128 characters and message to 500', () => {
    expect(
      HandshakeCreateRequest.safeParse({ ...valid, agentId: 'a'.repeat(128), message: 'm'.repeat(500) })
        .success,
    ).toBe(true);
  });
});

describe('MemoryWriteRequest and ChatRequest', () => {
  test('memory content is 1 byte to 64 KiB of UTF-8, markdown and newlines allowed', () => {
    expect(MemoryWriteRequest.safeParse({ content: '# Note\n\n- item\ttab' }).success).toBe(true);
    expect(MemoryWriteRequest.safeParse({ content: 'x'.repeat(65_536) }).success).toBe(true);
    expect(MemoryWriteRequest.safeParse({ content: 'x'.repeat(65_537) }).success).toBe(false);
    // 3 bytes per character: 21 846 characters are 65 538 bytes
    expect(MemoryWriteRequest.safeParse({ content: '€'.repeat(21_846) }).success).toBe(false);
    expect(MemoryWriteRequest.safeParse({ content: '' }).success).toBe(false);
    expect(MemoryWriteRequest.safeParse({ content: 'x', id: '1' }).success).toBe(false);
    expect(MemoryWriteRequest.safeParse({ content: 'unpaired \udc00' }).success).toBe(false);
    expect(ChatRequest.safeParse({ message: 'x\u0000' }).success).toBe(false);
  });

  test('chat message is 1 byte to 16 KiB; conversationId is optional', () => {
    expect(ChatRequest.safeParse({ message: 'hi' }).success).toBe(true);
    expect(ChatRequest.safeParse({ message: 'hi', conversationId: 'conv_1' }).success).toBe(true);
    expect(ChatRequest.safeParse({ message: 'x'.repeat(16_385) }).success).toBe(false);
    expect(ChatRequest.safeParse({ message: 'hi', conversationId: '../x' }).success).toBe(false);
    expect(ChatRequest.safeParse({ message: 'hi', persona: 'x' }).success).toBe(false);
  });
});

describe('TriggerCreateRequest', () => {
  const base = {
    name: 'Digest',
    kind: 'schedule',
    timezone: 'Europe/Berlin',
    actionType: 'ai_prompt',
    action: { prompt: 'Summarise my notifications.', services: ['github'] },
  };
  const withSchedule = (schedule: object, change: object = {}) =>
    TriggerCreateRequest.safeParse({ ...base, schedule, ...change });

  test('a trigger name refuses control characters, like every name (displayName)', () => {
    const daily = { type: 'daily', atHour: 9, atMinute: 0 };
    expect(withSchedule(daily, { name: 'Digest\nApproved' }).error?.issues).toEqual([
      expect.objectContaining({ path: ['name'], message: NAME_CHARACTERS_MESSAGE }),
    ]);
  });

  test.each([
    { type: 'once', date: '2027-02-28', atHour: 9, atMinute: 0 },
    { type: 'interval', intervalMinutes: 60, atHour: 0, atMinute: 0 },
    { type: 'daily', atHour: 23, atMinute: 59 },
    { type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 },
    { type: 'monthly', dayOfMonth: 31, atHour: 12, atMinute: 0 },
  ])('accepts the schedule %j', (schedule) => {
    expect(withSchedule(schedule).success).toBe(true);
  });

  test.each([
    [{ type: 'daily', atHour: 24, atMinute: 0 }, 'schedule.atHour'],
    [{ type: 'daily', atHour: 1.5, atMinute: 0 }, 'schedule.atHour'],
    [{ type: 'daily', atHour: 1, atMinute: 60 }, 'schedule.atMinute'],
    [{ type: 'daily', atHour: 1, atMinute: 0, weekday: 'monday' }, 'schedule'],
    [{ type: 'once', date: '2027-02-29', atHour: 9, atMinute: 0 }, 'schedule.date'],
    [{ type: 'once', atHour: 9, atMinute: 0 }, 'schedule.date'],
    [{ type: 'interval', intervalMinutes: 4, atHour: 0, atMinute: 0 }, 'schedule.intervalMinutes'],
    [{ type: 'weekly', weekday: 'Monday', atHour: 8, atMinute: 30 }, 'schedule.weekday'],
    [{ type: 'monthly', dayOfMonth: 32, atHour: 8, atMinute: 30 }, 'schedule.dayOfMonth'],
    [{ type: 'hourly', atHour: 8, atMinute: 30 }, 'schedule.type'],
  ])('rejects the schedule %j at %s', (schedule, path) => {
    expect(issuePaths(withSchedule(schedule))).toContain(path);
  });

  test.each([
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: '+01:00' }, 'timezone'],
    [{ kind: 'webhook' }, 'kind'],
    [{ actionType: 'http' }, 'actionType'],
    [{ action: { prompt: 'x', services: ['GitHub'] } }, 'action.services.0'],
    [{ action: { prompt: 'x', services: ['a', 'a'] } }, 'action.services'],
    [{ action: { prompt: 'x', services: [], extra: 1 } }, 'action'],
    [{ owner: 'someone-else' }, ''],
  ])('rejects %j at %j', (change, path) => {
    expect(issuePaths(withSchedule({ type: 'daily', atHour: 9, atMinute: 0 }, change))).toContain(path);
  });

  test('time-zone names are IANA names, aliases included', () => {
    expect(
      ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta'].map(isTimeZone),
    ).toEqual([true, true, true, true]);
    expect(['', 'Berlin', 'Etc/Nowhere', '+05:30'].map(isTimeZone)).toEqual([false, false, false, false]);
  });
});

describe('DeviceRegisterRequest', () => {
  const rawKey = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';

  test('accepts a raw base64url key or a public JWK', () => {
    expect(DeviceRegisterRequest.safeParse({ publicKey: rawKey, deviceName: 'laptop' }).success).toBe(true);
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: rawKey, alg: 'EdDSA' };
    expect(DeviceRegisterRequest.safeParse({ publicKey: jwk, deviceName: 'laptop' }).success).toBe(true);
  });

  test('refuses a private JWK, other curves, wrong lengths and padding', () => {
    const parse = (publicKey: unknown) =>
      DeviceRegisterRequest.safeParse({ publicKey, deviceName: 'x' }).success;
    expect(parse({ kty: 'OKP', crv: 'Ed25519', x: rawKey, d: rawKey })).toBe(false);
    expect(parse({ kty: 'OKP', crv: 'X25519', x: rawKey })).toBe(false);
    expect(parse(rawKey.slice(1))).toBe(false);
    expect(parse(`${rawKey}=`)).toBe(false);
    expect(parse(rawKey.replace(/o$/, 'p'))).toBe(false);
  });

  test('requires a device name', () => {
    expect(DeviceRegisterRequest.safeParse({ publicKey: rawKey }).success).toBe(false);
    expect(DeviceRegisterRequest.safeParse({ publicKey: rawKey, deviceName: '' }).success).toBe(false);
  });

  test.each([
    ['a tab', 'lap\ttop'],
    ['a line break', 'laptop\nApproved'],
    ['an escape sequence', 'laptop\u001b[2J'],
    ['a C1 control', 'laptop\u0085'],
    ['a line separator', 'laptop\u2028x'],
    ['a bidi override', 'laptop\u202e'],
  ])('refuses a device name with %s, like every name (displayName)', (_what, deviceName) => {
    const parsed = DeviceRegisterRequest.safeParse({ publicKey: rawKey, deviceName });
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({ path: ['deviceName'], message: NAME_CHARACTERS_MESSAGE }),
    ]);
  });
});

describe('displayName', () => {
  test('trims, counts 1..max characters, and keeps ordinary text', () => {
    expect(displayName(10).parse('  Büro-PC ✓ ')).toBe('Büro-PC ✓');
    expect(displayName(10).safeParse('   ').success).toBe(false);
    expect(displayName(10).safeParse('x'.repeat(11)).success).toBe(false);
  });
});

describe('character and byte limits', () => {
  test('the handshake message counts characters, not bytes', () => {
    const request = { agentId: 'a', requestedScopes: ['read'], message: 'ü'.repeat(500) };
    expect(HandshakeCreateRequest.safeParse(request).success).toBe(true);
  });
});
