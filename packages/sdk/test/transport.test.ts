/**
 * The transport's rules against a scripted fetch (answers as the gateway gives them): what is
 * retried after a 429 or 503 and how long it waits, the single renewal after a 401, the refused
 * redirect (never a second request), and the base URL it accepts.
 */
import { describe, expect, test } from '@jest/globals';
import { ExpiringCredential, staticToken } from '../src/credentials.ts';
import { PagError } from '../src/errors.ts';
import { Transport } from '../src/transport.ts';

const BASE = 'http://gateway.test';

function errorAnswer(status: number, code: string, headers: Record<string, string> = {}): Response {
  return Response.json(
    { error: { code, message: `${code}.`, hint: 'A hint.', requestId: 'req-1' } },
    { status, headers },
  );
}

/** A fetch answering from the script in order, noting each request's method and Authorization. */
function scripted(...answers: Response[]) {
  const seen: { method: string; authorization: string | null; redirect: string | undefined }[] = [];
  const fetcher = async (_input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      method: init?.method ?? 'GET',
      authorization: new Headers(init?.headers).get('authorization'),
      redirect: init?.redirect,
    });
    const next = answers.shift();
    if (next === undefined) throw new Error('the script has no more answers');
    return next;
  };
  return { fetch: fetcher as typeof fetch, seen };
}

function transportWith(
  script: ReturnType<typeof scripted>,
  waits: number[] = [],
  credential = staticToken('t1'),
) {
  return new Transport(BASE, credential, {
    fetch: script.fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
}

describe('retries', () => {
  test('a 429 the gateway refused before performing is retried after Retry-After, even a POST', async () => {
    const script = scripted(
      errorAnswer(429, 'RATE_LIMITED', { 'retry-after': '2' }),
      Response.json({ ok: 1 }),
    );
    const waits: number[] = [];
    const response = await transportWith(script, waits).send({
      method: 'POST',
      path: '/api/v1/memory',
      json: {},
    });
    expect(await response.json()).toEqual({ ok: 1 });
    expect(waits).toEqual([2000]);
    expect(script.seen.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  test('a 503 is retried for a GET, never for a POST', async () => {
    const get = scripted(errorAnswer(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }), Response.json({}));
    await transportWith(get).send({ method: 'GET', path: '/api/v1/gateway/context' });
    expect(get.seen).toHaveLength(2);
    const post = scripted(errorAnswer(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }));
    await expect(
      transportWith(post).send({ method: 'POST', path: '/api/v1/brain/chat' }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      retryAfterSeconds: 1,
    });
    expect(post.seen).toHaveLength(1);
  });

  test('a 429 without Retry-After, or of another kind on a POST, is thrown at once', async () => {
    const bare = scripted(errorAnswer(429, 'RATE_LIMITED'));
    await expect(transportWith(bare).send({ method: 'GET', path: '/x' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    const other = scripted(errorAnswer(429, 'SOMETHING_ELSE', { 'retry-after': '1' }));
    await expect(transportWith(other).send({ method: 'POST', path: '/x' })).rejects.toMatchObject({
      code: 'SOMETHING_ELSE',
    });
    expect([bare.seen.length, other.seen.length]).toEqual([1, 1]);
  });

  test('an HTTP-date Retry-After is honoured', async () => {
    const at = new Date(Date.now() + 3000).toUTCString();
    const script = scripted(errorAnswer(429, 'RATE_LIMITED', { 'retry-after': at }), Response.json({}));
    const waits: number[] = [];
    await transportWith(script, waits).send({ method: 'GET', path: '/x' });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(4000);
  });
});

describe('renewal after a 401', () => {
  test('an expired token is renewed once and the request repeated with the new one', async () => {
    let issued = 0;
    const credential = new ExpiringCredential(async () => {
      issued += 1;
      return { token: `t${issued}`, expiresInSeconds: 3600 };
    }, Date.now);
    const script = scripted(errorAnswer(401, 'TOKEN_EXPIRED'), Response.json({ fine: true }));
    const response = await transportWith(script, [], credential).send({
      method: 'POST',
      path: '/api/v1/memory',
    });
    expect(await response.json()).toEqual({ fine: true });
    expect(script.seen.map((request) => request.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
  });

  test('a second 401 after renewing is thrown, not renewed again', async () => {
    let issued = 0;
    const credential = new ExpiringCredential(
      async () => ({ token: `t${++issued}`, expiresInSeconds: 3600 }),
      Date.now,
    );
    const script = scripted(errorAnswer(401, 'INVALID_TOKEN'), errorAnswer(401, 'INVALID_TOKEN'));
    await expect(
      transportWith(script, [], credential).send({ method: 'GET', path: '/x' }),
    ).rejects.toMatchObject({
      code: 'INVALID_TOKEN',
      status: 401,
    });
    expect(issued).toBe(2);
  });

  test('a token about to expire is renewed before use', async () => {
    let now = 0;
    let issued = 0;
    const credential = new ExpiringCredential(
      async () => ({ token: `t${++issued}`, expiresInSeconds: 600 }),
      () => now,
    );
    expect(await credential.token()).toBe('t1');
    now = 500_000;
    expect(await credential.token()).toBe('t1');
    now = 550_000;
    expect(await credential.token()).toBe('t2');
  });

  test('a short-lived token is renewed at half its lifetime', async () => {
    let now = 0;
    let issued = 0;
    const credential = new ExpiringCredential(
      async () => ({ token: `t${++issued}`, expiresInSeconds: 10 }),
      () => now,
    );
    expect(await credential.token()).toBe('t1');
    now = 4_999;
    expect(await credential.token()).toBe('t1');
    now = 5_000;
    expect(await credential.token()).toBe('t2');
  });
});

describe('redirects and errors', () => {
  test('a 3xx is REDIRECT_REFUSED naming the Location, and nothing is sent there', async () => {
    const script = scripted(
      new Response(null, { status: 307, headers: { location: 'http://elsewhere.test/api/v1/x' } }),
    );
    const refused = await transportWith(script)
      .send({ method: 'GET', path: '/api/v1/x' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PagError);
    expect(refused).toMatchObject({
      code: 'REDIRECT_REFUSED',
      status: 307,
      location: 'http://elsewhere.test/api/v1/x',
    });
    expect(script.seen).toEqual([{ method: 'GET', authorization: 'Bearer t1', redirect: 'manual' }]);
  });

  test('an error without an error body is UNEXPECTED_RESPONSE with the status', async () => {
    const script = scripted(new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(transportWith(script).send({ method: 'GET', path: '/x' })).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
    });
  });

  test.each([
    ['http://gateway.test/', 'http://gateway.test'],
    ['http://gateway.test/prefix/', 'http://gateway.test/prefix'],
  ])('the base URL %s is used as %s', (given, used) => {
    expect(new Transport(given, null).baseUrl).toBe(used);
  });

  test.each([['http://gateway.test/api/v1'], ['http://gateway.test/?x=1']])(
    'the base URL %s is refused',
    (given) => {
      expect(() => new Transport(given, null)).toThrow(expect.objectContaining({ code: 'INVALID_BASE_URL' }));
    },
  );
});
