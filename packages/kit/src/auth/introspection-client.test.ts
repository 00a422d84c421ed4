import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { TokenRevokedEvent } from '@pag/contracts';
import { AppError, EventSubjects, TOKEN_INACTIVE_HEADER, TOKEN_LEGACY_HEADER } from '@pag/contracts';
import { MemoryBus } from '../bus/memory-bus.ts';
import { closeServer } from '../lifecycle/http-server.ts';
import { freePort } from '../net/free-port.ts';
import { IntrospectionClient } from './introspection-client.ts';
import { tokenSha256 } from './token-hash.ts';
import { TokenTags } from './token-tags.ts';

const TAG_KEY = 'tag-key-for-the-introspection-client-tests';
const tags = new TokenTags([TAG_KEY]);

/** A stand-in for the auth service's RFC 7662 endpoint that counts what it is asked. */
class FakeIntrospection {
  readonly server: Server;
  readonly tokens = new Map<string, Record<string, unknown>>();
  readonly asked: string[] = [];
  /** While set, answers wait for it (concurrency and timeout tests). */
  hold: Promise<void> | undefined;
  /** TOKEN_LEGACY_HEADER on every answer, when set. */
  legacyUntil: string | undefined;
  /** TOKEN_INACTIVE_HEADER per inactive token, as the auth service names the reason. */
  readonly inactive = new Map<string, string>();
  /** How many of the next requests lose their connection unanswered (a replica that stops). */
  drops = 0;
  /** How many of the next requests get 503, as a replica that is not ready yet answers. */
  unready = 0;
  #arrivals: Array<() => void> = [];

  constructor() {
    this.server = createServer((req, res) => void this.#answer(req, res));
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.drops > 0) {
      this.drops -= 1;
      req.socket.destroy();
      return;
    }
    if (this.unready > 0) {
      this.unready -= 1;
      req.resume();
      res.writeHead(503, { connection: 'close', 'retry-after': '1' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    const basic = Buffer.from('gateway:s3cret%3Awith%25').toString('base64');
    if (req.url !== '/oauth/introspect' || req.headers.authorization !== `Basic ${basic}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    const token = form.get('token') ?? '';
    this.asked.push(`${token} ${form.get('token_type_hint')}`);
    for (const arrived of this.#arrivals.splice(0)) arrived();
    if (this.hold !== undefined) await this.hold;
    if (this.legacyUntil !== undefined) res.setHeader(TOKEN_LEGACY_HEADER, this.legacyUntil);
    const reason = this.inactive.get(token);
    if (reason !== undefined) res.setHeader(TOKEN_INACTIVE_HEADER, reason);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(this.tokens.get(token) ?? { active: false }));
  }

  /** Resolves when the next request has reached the handler. */
  nextArrival(): Promise<void> {
    return new Promise((resolve) => this.#arrivals.push(resolve));
  }
}

const fake = new FakeIntrospection();
let authUrl: string;
let clock = 1_700_000_000_000;
const now = () => clock;
const nowSeconds = () => Math.floor(clock / 1000);
let client: IntrospectionClient;

beforeAll(async () => {
  fake.server.listen(0, '127.0.0.1');
  await once(fake.server, 'listening');
  authUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(fake.server));
afterEach(async () => {
  await client?.close();
  fake.asked.length = 0;
  fake.tokens.clear();
  fake.hold = undefined;
  fake.legacyUntil = undefined;
  fake.inactive.clear();
  fake.drops = 0;
  fake.unready = 0;
});

function activeToken(token: string, claims: Record<string, unknown> = {}): void {
  fake.tokens.set(token, {
    active: true,
    scope: 'read chat',
    client_id: 'agent-1',
    sub: 'acc-1',
    account_id: 'acc-1',
    aud: 'https://gw.example/api/v1',
    exp: nowSeconds() + 3600,
    iat: nowSeconds(),
    token_type: 'Bearer',
    plan: 'pro',
    ...claims,
  });
}

async function newClient(options: Partial<Parameters<typeof IntrospectionClient.create>[0]> = {}) {
  client = await IntrospectionClient.create({
    authUrl,
    clientId: 'gateway',
    clientSecret: 's3cret:with%',
    tokenTagKeys: [TAG_KEY],
    cacheMs: 5_000,
    negativeCacheMs: 1_000,
    now,
    ...options,
  });
  return client;
}

describe('why a token is inactive', () => {
  test('the auth service names expired or revoked; the reason is cached with the answer, as briefly', async () => {
    const expired = tags.mint('oauth');
    const revoked = tags.mint('device');
    fake.inactive.set(expired, 'expired');
    fake.inactive.set(revoked, 'revoked');
    const checker = await newClient();
    expect(await checker.check(expired)).toEqual({ active: null, reason: 'expired' });
    expect(await checker.check(revoked)).toEqual({ active: null, reason: 'revoked' });
    fake.inactive.clear();
    // Answered from the negative cache: the same reason, no new question.
    expect(await checker.check(expired)).toEqual({ active: null, reason: 'expired' });
    expect(fake.asked).toHaveLength(2);
    clock += 1_001;
    expect(await checker.check(expired)).toEqual({ active: null, reason: 'unknown' });
    expect(await checker.introspect(revoked)).toBeNull();
  });

  test('no reason, a reason it does not know, or a token refused from its text: unknown', async () => {
    const plain = tags.mint('oauth');
    const odd = tags.mint('oauth');
    fake.inactive.set(odd, 'stolen');
    const checker = await newClient();
    expect(await checker.check(plain)).toEqual({ active: null, reason: 'unknown' });
    expect(await checker.check(odd)).toEqual({ active: null, reason: 'unknown' });
    const forged = `${plain.slice(0, -2)}${plain.at(-2) === 'A' ? 'B' : 'A'}${plain.at(-1)}`;
    expect(await checker.check(forged)).toEqual({ active: null, reason: 'unknown' });
    expect(await checker.check(tags.mint('refresh'))).toEqual({ active: null, reason: 'unknown' });
    expect(fake.asked).toHaveLength(2);
  });

  test('a token revoked by an event is revoked, whatever a later answer says', async () => {
    const bus = new MemoryBus();
    const token = tags.mint('handshake');
    activeToken(token);
    const checker = await newClient({ bus });
    expect((await checker.check(token)).active).not.toBeNull();
    fake.tokens.delete(token);
    const event: TokenRevokedEvent = {
      accountId: 'acc-1',
      clientId: 'agent-1',
      tokenSha256: tokenSha256(token),
      revokedAt: new Date(clock).toISOString(),
    };
    await bus.publish(EventSubjects.tokenRevoked, event);
    expect(await checker.check(token)).toEqual({ active: null, reason: 'revoked' });
    await bus.close();
  });
});

describe('introspection client', () => {
  test('reads an active token, authenticating with client_secret_basic and the access-token hint', async () => {
    activeToken('tok-a');
    const answer = await (await newClient()).introspect('tok-a');
    expect(answer).toEqual({
      scopes: ['read', 'chat'],
      clientId: 'agent-1',
      accountId: 'acc-1',
      subject: 'acc-1',
      audience: ['https://gw.example/api/v1'],
      expiresAt: nowSeconds() + 3600,
      issuedAt: nowSeconds(),
      tokenType: 'Bearer',
      extra: { plan: 'pro' },
    });
    expect(fake.asked).toEqual(['tok-a access_token']);
  });

  test.each([
    ['a refresh token (no token_type)', { token_type: undefined }],
    ['a DPoP-bound token', { token_type: 'DPoP' }],
    ['a certificate-bound token', { cnf: { 'x5t#S256': 'abc' } }],
    ['an answer without client_id', { client_id: undefined }],
  ])('%s is not an active bearer token', async (_name, claims) => {
    activeToken('not-bearer', claims);
    expect(await (await newClient()).introspect('not-bearer')).toBeNull();
  });

  test('an answer that is no introspection response is 503, not an inactive token', async () => {
    fake.tokens.set('odd', { active: 'yes' });
    await expect((await newClient()).introspect('odd')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  test('reuses an answer within cacheMs, keyed by the token hash, and asks again after it', async () => {
    activeToken('tok-b');
    await newClient();
    await client.introspect('tok-b');
    clock += 4_999;
    await client.introspect('tok-b');
    expect(fake.asked).toHaveLength(1);
    client.evict(tokenSha256('tok-b'));
    await client.introspect('tok-b');
    expect(fake.asked).toHaveLength(2);
    clock += 5_000;
    await client.introspect('tok-b');
    expect(fake.asked).toHaveLength(3);
  });

  test("never reuses an answer past the token's expiry", async () => {
    activeToken('tok-c', { exp: nowSeconds() + 2 });
    await newClient({ cacheMs: 60_000 });
    await client.introspect('tok-c');
    clock += 2_000;
    fake.tokens.set('tok-c', { active: false });
    expect(await client.introspect('tok-c')).toBeNull();
    expect(fake.asked).toHaveLength(2);
  });

  test('caches an inactive answer briefly, so repeated wrong tokens reach auth once per period', async () => {
    await newClient();
    for (let i = 0; i < 20; i += 1) expect(await client.introspect('wrong')).toBeNull();
    expect(fake.asked).toHaveLength(1);
    clock += 1_000;
    expect(await client.introspect('wrong')).toBeNull();
    expect(fake.asked).toHaveLength(2);
  });

  test('concurrent checks of one token share one request', async () => {
    activeToken('tok-d');
    await newClient();
    const { promise: hold, resolve: release } = Promise.withResolvers<void>();
    fake.hold = hold;
    const arrived = fake.nextArrival();
    const answers = Array.from({ length: 10 }, () => client.introspect('tok-d'));
    await arrived;
    release();
    const results = await Promise.all(answers);
    expect(fake.asked).toHaveLength(1);
    expect(new Set(results.map((r) => r?.clientId))).toEqual(new Set(['agent-1']));
  });

  test('a TokenRevokedEvent for the token evicts it at once', async () => {
    const bus = new MemoryBus();
    try {
      activeToken('tok-e');
      await newClient({ bus });
      await client.introspect('tok-e');
      fake.tokens.set('tok-e', { active: false });
      await publishRevocation(bus, { tokenSha256: tokenSha256('tok-e'), clientId: 'agent-1' });
      expect(await client.introspect('tok-e')).toBeNull();
      expect(fake.asked).toHaveLength(2);
    } finally {
      await bus.close();
    }
  });

  test("a TokenRevokedEvent without a hash evicts every token of the client and no other's", async () => {
    const bus = new MemoryBus();
    try {
      activeToken('tok-f1');
      activeToken('tok-f2');
      activeToken('tok-g', { client_id: 'agent-2' });
      await newClient({ bus });
      await Promise.all(['tok-f1', 'tok-f2', 'tok-g'].map((token) => client.introspect(token)));
      await publishRevocation(bus, { tokenSha256: null, clientId: 'agent-1' });
      await Promise.all(['tok-f1', 'tok-f2', 'tok-g'].map((token) => client.introspect(token)));
      expect(fake.asked.map((line) => line.split(' ')[0]).sort()).toEqual([
        'tok-f1',
        'tok-f1',
        'tok-f2',
        'tok-f2',
        'tok-g',
      ]);
    } finally {
      await bus.close();
    }
  });

  test('an answer in flight while its token is revoked is not cached', async () => {
    activeToken('tok-h');
    await newClient();
    const { promise: hold, resolve: release } = Promise.withResolvers<void>();
    fake.hold = hold;
    const arrived = fake.nextArrival();
    const first = client.introspect('tok-h');
    await arrived;
    client.evict(tokenSha256('tok-h'));
    release();
    await first;
    fake.hold = undefined;
    fake.tokens.set('tok-h', { active: false });
    expect(await client.introspect('tok-h')).toBeNull();
  });

  test('a revoked token stays refused for a while though an auth replica still answers active', async () => {
    const bus = new MemoryBus();
    try {
      activeToken('tok-r');
      await newClient({ bus, cacheMs: 1_000 });
      expect(await client.introspect('tok-r')).not.toBeNull();
      // The replica asked next has not heard of the revocation: it still says active.
      await publishRevocation(bus, { tokenSha256: tokenSha256('tok-r'), clientId: 'agent-1' });
      expect(await client.introspect('tok-r')).toBeNull();
      clock += 5_000;
      expect(await client.introspect('tok-r')).toBeNull();
      clock += 5_000;
      expect(await client.introspect('tok-r')).not.toBeNull();
    } finally {
      await bus.close();
    }
  });

  test("a client's revocation refuses its tokens issued before it; one of the same second is asked about on each use", async () => {
    const bus = new MemoryBus();
    try {
      activeToken('tok-before', { iat: nowSeconds() - 1 });
      activeToken('tok-same', { iat: nowSeconds() });
      activeToken('tok-after', { iat: nowSeconds() + 2 });
      await newClient({ bus });
      await publishRevocation(bus, { tokenSha256: null, clientId: 'agent-1' });
      expect(await client.introspect('tok-before')).toBeNull();
      expect(await client.introspect('tok-after')).not.toBeNull();
      expect(await client.introspect('tok-after')).not.toBeNull();
      expect(await client.introspect('tok-same')).not.toBeNull();
      fake.tokens.set('tok-same', { active: false });
      expect(await client.introspect('tok-same')).toBeNull();
      expect(fake.asked.map((line) => line.split(' ')[0])).toEqual([
        'tok-before',
        'tok-after',
        'tok-same',
        'tok-same',
      ]);
    } finally {
      await bus.close();
    }
  });

  test('the least recently used answer leaves first when the cache is full', async () => {
    for (const token of ['l1', 'l2', 'l3']) activeToken(token);
    await newClient({ maxEntries: 2 });
    await client.introspect('l1');
    await client.introspect('l2');
    await client.introspect('l1');
    await client.introspect('l3');
    await client.introspect('l1');
    expect(fake.asked).toHaveLength(3);
    await client.introspect('l2');
    expect(fake.asked).toHaveLength(4);
  });

  test('auth down is 503 SERVICE_UNAVAILABLE, never an inactive token, and is not cached', async () => {
    await newClient({ authUrl: `http://127.0.0.1:${await freePort()}` });
    await expect(client.introspect('tok-i')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
    });
    await expect(client.introspect('tok-i')).rejects.toBeInstanceOf(AppError);
  });

  test('an auth replica that closes the connection unanswered (it is stopping): asked again on a new one', async () => {
    activeToken('tok-l');
    await newClient();
    fake.drops = 1;
    expect(await client.introspect('tok-l')).toMatchObject({ clientId: 'agent-1' });
    expect(fake.asked).toHaveLength(1);
  });

  test('an auth replica that answers 503 (not ready yet): asked again', async () => {
    activeToken('tok-n');
    await newClient();
    fake.unready = 1;
    expect(await client.introspect('tok-n')).toMatchObject({ clientId: 'agent-1' });
  });

  test('an auth service that keeps closing the connection unanswered is 503 with Retry-After', async () => {
    await newClient();
    fake.drops = 10;
    await expect(client.introspect('tok-m')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
  });

  test('a slow auth service is 504 UPSTREAM_TIMEOUT', async () => {
    activeToken('tok-j');
    await newClient({ timeoutMs: 100 });
    const { promise: hold, resolve: release } = Promise.withResolvers<void>();
    fake.hold = hold;
    try {
      await expect(client.introspect('tok-j')).rejects.toMatchObject({
        code: 'UPSTREAM_TIMEOUT',
        status: 504,
      });
    } finally {
      release();
    }
  });

  test('rejected client credentials are 503, not an inactive token', async () => {
    await newClient({ clientSecret: 'wrong' });
    await expect(client.introspect('tok-k')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

/** The token with one character of its tag changed (still base64url, same length). */
function flipLast(token: string): string {
  const last = token.at(-1) === 'A' ? 'Q' : 'A';
  return `${token.slice(0, -1)}${last}`;
}

describe('tokens read before any cache or request', () => {
  test('a token of ours with a flipped tag character is inactive without a request, even after the right one was cached', async () => {
    const token = tags.mint('dashboard');
    activeToken(token);
    await newClient();
    expect(await client.introspect(token)).not.toBeNull();
    fake.asked.length = 0;
    const forged = flipLast(token);
    activeToken(forged);
    expect(await client.introspect(forged)).toBeNull();
    expect(await client.introspect(flipLast(tags.mint('oauth')))).toBeNull();
    expect(fake.asked).toEqual([]);
  });

  test('a token tagged under another key, and a refresh token of ours, are inactive without a request', async () => {
    const foreign = new TokenTags(['another-tag-key-nobody-here-knows-about']).mint('oauth');
    const refresh = tags.mint('refresh');
    activeToken(foreign);
    activeToken(refresh);
    await newClient();
    expect(await client.introspect(foreign)).toBeNull();
    expect(await client.introspect(refresh)).toBeNull();
    expect(fake.asked).toEqual([]);
  });

  test('every kind of access token of ours is asked about, under any of the keys (rotation)', async () => {
    const old = new TokenTags(['the-previous-tag-key-still-verifying-0001']);
    const minted = [tags.mint('oauth'), tags.mint('handshake'), tags.mint('device'), old.mint('dashboard')];
    for (const token of minted) activeToken(token);
    await newClient({ tokenTagKeys: [TAG_KEY, 'the-previous-tag-key-still-verifying-0001'] });
    for (const token of minted) expect(await client.introspect(token)).not.toBeNull();
    expect(fake.asked).toHaveLength(minted.length);
  });

  test("a legacy token's cached answer is not used once legacy tokens are no longer accepted; a tagged one's is", async () => {
    const tagged = tags.mint('dashboard');
    activeToken('legacy-cached');
    activeToken(tagged);
    await newClient({ cacheMs: 60_000 });
    expect(await client.introspect('legacy-cached')).not.toBeNull();
    fake.legacyUntil = new Date(clock + 1_000).toISOString();
    expect(await client.introspect(tagged)).not.toBeNull();
    // Both answers cached: neither is asked about again while legacy tokens are accepted.
    expect(await client.introspect('legacy-cached')).not.toBeNull();
    expect(await client.introspect(tagged)).not.toBeNull();
    clock += 1_000;
    expect(await client.introspect('legacy-cached')).toBeNull();
    expect(await client.introspect(tagged)).not.toBeNull();
    expect(fake.asked).toEqual(['legacy-cached access_token', `${tagged} access_token`]);
    clock -= 1_000;
  });

  test('legacy tokens (no prefix) are asked about until the auth service says it no longer accepts them', async () => {
    activeToken('legacy-a');
    await newClient({ negativeCacheMs: 0 });
    // An auth service that does not say (an older one): asked.
    expect(await client.introspect('legacy-a')).not.toBeNull();
    fake.legacyUntil = new Date(clock + 60_000).toISOString();
    expect(await client.introspect('legacy-b')).toBeNull();
    expect(await client.introspect('legacy-c')).toBeNull();
    expect(fake.asked).toEqual(['legacy-a access_token', 'legacy-b access_token', 'legacy-c access_token']);
    clock += 60_000;
    expect(await client.introspect('legacy-d')).toBeNull();
    fake.legacyUntil = 'none';
    await client.introspect(tags.mint('oauth'));
    clock -= 60_000;
    expect(await client.introspect('legacy-e')).toBeNull();
    expect(fake.asked).toHaveLength(4);
  });
});

/**
 * Publishes a revocation and resolves once the client has seen it: the memory bus delivers a
 * message to subscribers in the order they subscribed, and the client subscribed first.
 */
async function publishRevocation(bus: MemoryBus, event: Omit<TokenRevokedEvent, 'accountId' | 'revokedAt'>) {
  const { promise: seen, resolve } = Promise.withResolvers<void>();
  const after = await bus.subscribe(EventSubjects.tokenRevoked, () => resolve());
  try {
    const payload: TokenRevokedEvent = {
      accountId: 'acc-1',
      revokedAt: new Date(clock).toISOString(),
      ...event,
    };
    await bus.publish(EventSubjects.tokenRevoked, payload);
    await seen;
  } finally {
    await after.close();
  }
}
