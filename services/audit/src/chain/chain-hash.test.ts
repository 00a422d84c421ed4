import { describe, expect, test } from '@jest/globals';
import type { AuditEvent } from '@pag/contracts';
import canonicalizeModule from 'canonicalize';
import type { ChainContent } from './chain-hash.ts';
import { CONTENT_FIELDS, canonicalContent, chainContent, chainHash, GENESIS_HASH } from './chain-hash.ts';
import { recordContent } from './record-content.ts';

const ROW: ChainContent = {
  eventId: '0b0f8c1e-5a8e-4c1e-9d2a-3f1d2c4b5a69',
  kind: 'request',
  source: 'gateway',
  requestId: 'req-1',
  time: '2026-11-24T06:00:00.123Z',
  recordedAt: '2026-11-24T06:00:00.456Z',
  accountId: 'acc',
  clientId: 'cli',
  agentId: null,
  tokenKind: 'oauth',
  actorType: null,
  actorId: null,
  action: 'http.request',
  target: null,
  clientAddress: '127.0.0.1',
  method: 'GET',
  path: '/api/v1/memory',
  status: 200,
  decision: 'allowed',
  reason: null,
  latencyMs: 12.5,
  bytesIn: 0,
  bytesOut: 42,
  detail: { z: 1, a: 'x' },
};

describe('the chain hash', () => {
  test('SHA-256 of the previous hash bytes and the RFC 8785 JSON of the row (computed independently)', () => {
    // Expected values from Python: json.dumps(row, sort_keys=True, separators=(',', ':')) and
    // hashlib.sha256(bytes(32) + text).hexdigest().
    expect(canonicalContent(ROW)).toBe(
      '{"accountId":"acc","action":"http.request","actorId":null,"actorType":null,"agentId":null,' +
        '"bytesIn":0,"bytesOut":42,"clientAddress":"127.0.0.1","clientId":"cli","decision":"allowed",' +
        '"detail":{"a":"x","z":1},"eventId":"0b0f8c1e-5a8e-4c1e-9d2a-3f1d2c4b5a69","kind":"request",' +
        '"latencyMs":12.5,"method":"GET","path":"/api/v1/memory","reason":null,' +
        '"recordedAt":"2026-11-24T06:00:00.456Z","requestId":"req-1","source":"gateway","status":200,' +
        '"target":null,"time":"2026-11-24T06:00:00.123Z","tokenKind":"oauth"}',
    );
    expect(chainHash(GENESIS_HASH, ROW)).toBe(
      '4790530b828b446f0b70cc4ab8f7e9a5dc67ac11a4286a6662c7446f71588d07',
    );
  });

  test('the same text as the canonicalize package over the whole content, for any values', () => {
    // chain-hash.ts writes the fixed members itself; the package is the reference (as in verify).
    const canonicalize = canonicalizeModule as unknown as typeof canonicalizeModule.default;
    const tricky = 'a "q" \\ \u00e9\u4e2d\u{1f600}\t\n\u001f\u2028\u007f';
    const rows: ChainContent[] = [
      ROW,
      Object.fromEntries(CONTENT_FIELDS.map((field) => [field, null])) as unknown as ChainContent,
      { ...ROW, requestId: tricky, path: tricky, reason: tricky, clientId: '' },
      { ...ROW, status: 0, latencyMs: 0.1 + 0.2, bytesIn: 2 ** 53, bytesOut: 1e21 },
      {
        ...ROW,
        latencyMs: -0,
        // Nested values, which AuditDetail refuses today: the text must still be the package's.
        detail: {
          [tricky]: [1, 'x', null, true, { b: {}, a: [] }],
          '\u00e9': 1,
          e: 2,
          B: 3,
        } as unknown as ChainContent['detail'],
      },
    ];
    for (const row of rows) expect(canonicalContent(row)).toBe(canonicalize(chainContent(row)));
  });

  test("seq and hash of a stored record are not part of the content; a row's place is its previous hash", () => {
    const stored = { ...ROW, seq: 7, hash: 'f'.repeat(64), prevHash: GENESIS_HASH };
    expect(chainHash(GENESIS_HASH, stored)).toBe(chainHash(GENESIS_HASH, ROW));
    expect(chainHash('1'.repeat(64), ROW)).not.toBe(chainHash(GENESIS_HASH, ROW));
  });

  test('every field counts, a null one too', () => {
    const base = chainHash(GENESIS_HASH, ROW);
    for (const [field, value] of Object.entries({
      agentId: 'agt',
      status: 201,
      latencyMs: 12.501,
      detail: {},
    })) {
      expect(chainHash(GENESIS_HASH, { ...ROW, [field]: value })).not.toBe(base);
    }
  });

  test('a row missing a field is refused (JCS would silently leave it out)', () => {
    const { reason: _, ...missing } = ROW;
    expect(() => chainHash(GENESIS_HASH, missing as ChainContent)).toThrow(/reason/);
  });

  test('the previous hash must be 64 lowercase hex digits', () => {
    expect(() => chainHash('ABC', ROW)).toThrow(/previous hash/);
  });
});

describe('an event as the row it becomes', () => {
  const event: AuditEvent = {
    kind: 'action',
    eventId: '0B0F8C1E-5A8E-4C1E-9D2A-3F1D2C4B5A69',
    source: 'proxy',
    requestId: 'req-2',
    time: '2026-11-24T06:00:00.1234567Z',
    accountId: 'acc',
    clientId: null,
    agentId: 'agt',
    decision: 'allowed',
    reason: null,
    actor: { type: 'agent', id: 'agt' },
    action: 'proxy.call',
    target: 'github',
    status: 200,
    latencyMs: 1.23456,
    detail: { upstream: 'api.github.com' },
  };

  test('values in the form PostgreSQL gives back: ms UTC time, 3-decimal latency, lowercase id', () => {
    const row = recordContent(event, new Date('2026-11-24T06:00:01.000Z'));
    expect(row).toMatchObject({
      eventId: '0b0f8c1e-5a8e-4c1e-9d2a-3f1d2c4b5a69',
      time: '2026-11-24T06:00:00.123Z',
      recordedAt: '2026-11-24T06:00:01.000Z',
      latencyMs: 1.235,
      actorType: 'agent',
      actorId: 'agt',
      method: null,
      tokenKind: null,
    });
  });
});
