/**
 * The budget of rejected tokens per client address (docs/adr/0026-auth-failure-budget-per-address.md),
 * driven over HTTP: behind TRUST_PROXY (loopback, the test's own proxy) each X-Forwarded-For is
 * another client. Budget 3 in 60 s. Past it the address gets 429 RATE_LIMITED with Retry-After,
 * also for a right token and without any introspection, until its window ends on the gateway's
 * clock (moved by the test); other addresses are served as before. Two replicas on one database
 * together answer exactly 3 failures 401. Right tokens never wait for the database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import type { TestGateway } from './start-test-gateway.ts';
import type { TokenGateway } from './start-token-gateway.ts';
import { startTokenGateway } from './start-token-gateway.ts';

const CAPABILITIES = '/api/v1/tokens/me/capabilities';
const BUDGET = { TRUST_PROXY: 'loopback', AUTH_FAILURES_PER_ADDRESS: '3', AUTH_FAILURE_WINDOW_SECONDS: '60' };

let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
let stack: TokenGateway;
let second: TestGateway;

beforeAll(async () => {
  stack = await startTokenGateway(BUDGET, { now });
  second = await stack.startAnother(BUDGET, { now });
}, 60_000);
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

/** Another client address each time it is called. */
let clients = 0;
const nextClient = () => `203.0.113.${++clients}`;

/** A right token nobody has used yet (so no gateway has its introspection cached). */
function rightToken(): string {
  const token = `right-${randomUUID()}`;
  stack.issue(token, 'read');
  return token;
}
const wrongToken = () => `wrong-${randomUUID()}`;

async function call(from: string, authorization?: string, gateway: TestGateway = stack.gateway) {
  const headers: Record<string, string> = { 'x-forwarded-for': from };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${gateway.url}${CAPABILITIES}`, { headers });
  const body = (await response.json()) as unknown;
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    code: response.status === 200 ? undefined : ErrorBody.parse(body).error.code,
  };
}
const bearer = (token: string) => `Bearer ${token}`;

/**
 * Retry-After is what is left of the window (`left` seconds when the first failure was counted)
 * at the moment of the answer: on a loaded machine the answer comes seconds later, and the wait
 * is that much shorter (58 instead of 60 once, in CI). `since`: just before the first failure.
 */
function expectWaitAbout(retryAfter: string | null, left: number, since: number): void {
  const elapsed = Math.ceil((Date.now() - since) / 1000);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(left - 1 - elapsed);
  expect(Number(retryAfter)).toBeLessThanOrEqual(left);
}

describe('an address sending wrong tokens', () => {
  test('gets 401 three times, then 429 RATE_LIMITED with Retry-After, for right tokens too and without introspection', async () => {
    const attacker = nextClient();
    const since = Date.now();
    for (let i = 0; i < 3; i++)
      expect(await call(attacker, bearer(wrongToken()))).toMatchObject({
        status: 401,
        code: 'INVALID_TOKEN',
      });

    const introspections = stack.auth.introspections;
    const refused = await call(attacker, bearer(wrongToken()));
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expectWaitAbout(refused.retryAfter, 60, since);
    expect(await call(attacker, bearer(rightToken()))).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(await call(attacker)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(stack.auth.introspections).toBe(introspections);
  });

  test('does not affect another address, on either replica', async () => {
    const attacker = nextClient();
    const neighbour = nextClient();
    for (let i = 0; i < 4; i++) await call(attacker, bearer(wrongToken()));
    expect((await call(attacker, bearer(rightToken()))).status).toBe(429);

    const token = rightToken();
    expect((await call(neighbour, bearer(token))).status).toBe(200);
    expect((await call(neighbour, bearer(token), second)).status).toBe(200);
    expect(await call(neighbour, bearer(wrongToken()))).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
  });

  test('is served again once its window ends, with a fresh budget', async () => {
    const attacker = nextClient();
    let since = Date.now();
    for (let i = 0; i < 3; i++) await call(attacker, bearer(wrongToken()));
    offsetMs += 45_000;
    const waiting = await call(attacker, bearer(rightToken()));
    expect(waiting).toMatchObject({ status: 429 });
    expectWaitAbout(waiting.retryAfter, 15, since);
    offsetMs += 15_000;
    expect((await call(attacker, bearer(rightToken()))).status).toBe(200);
    since = Date.now();
    for (let i = 0; i < 3; i++) expect((await call(attacker, bearer(wrongToken()))).status).toBe(401);
    const again = await call(attacker, bearer(wrongToken()));
    expect(again).toMatchObject({ status: 429 });
    expectWaitAbout(again.retryAfter, 60, since);
  });
});

describe('what counts as a failure', () => {
  test('a malformed Authorization header, an unknown token and a token of another audience count', async () => {
    const client = nextClient();
    const otherAudience = `other-${randomUUID()}`;
    stack.issue(otherAudience, 'read', { aud: 'https://elsewhere.example/api' });
    expect(await call(client, 'Basic dXNlcjpwYXNz')).toMatchObject({ status: 401, code: 'MALFORMED_TOKEN' });
    expect(await call(client, bearer(otherAudience))).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    expect(await call(client, bearer(wrongToken()))).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    expect(await call(client, bearer(rightToken()))).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });

  test('a missing token does not count', async () => {
    const client = nextClient();
    for (let i = 0; i < 5; i++)
      expect(await call(client)).toMatchObject({ status: 401, code: 'AUTHENTICATION_REQUIRED' });
    expect((await call(client, bearer(rightToken()))).status).toBe(200);
  });

  test('a right token resets nothing', async () => {
    const client = nextClient();
    const token = rightToken();
    expect((await call(client, bearer(wrongToken()))).status).toBe(401);
    expect((await call(client, bearer(token))).status).toBe(200);
    expect((await call(client, bearer(wrongToken()))).status).toBe(401);
    expect((await call(client, bearer(token))).status).toBe(200);
    expect((await call(client, bearer(wrongToken()))).status).toBe(401);
    expect((await call(client, bearer(token))).status).toBe(429);
  });
});

describe('two replicas on one database', () => {
  test('20 wrong tokens at once, spread over both: exactly 3 are answered 401, 17 are 429', async () => {
    const attacker = nextClient();
    const since = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(attacker, bearer(wrongToken()), i % 2 === 0 ? stack.gateway : second),
      ),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(3);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(17);
    for (const answer of refused) {
      expect(answer.code).toBe('RATE_LIMITED');
      expectWaitAbout(answer.retryAfter, 60, since);
    }
    const token = rightToken();
    expect((await call(attacker, bearer(token))).status).toBe(429);
    expect((await call(attacker, bearer(token), second)).status).toBe(429);
  });
});

test('without TRUST_PROXY a client cannot pick its budget with X-Forwarded-For', async () => {
  const direct = await stack.startAnother({ AUTH_FAILURES_PER_ADDRESS: '3' }, { now });
  try {
    // Every request comes from the socket's address, whatever X-Forwarded-For claims.
    for (let i = 0; i < 3; i++) await call(nextClient(), bearer(wrongToken()), direct);
    expect(await call(nextClient(), bearer(rightToken()), direct)).toMatchObject({ status: 429 });
  } finally {
    await direct[Symbol.asyncDispose]();
  }
});

test('with the database gone, right tokens are still served (no statement on their way) and wrong ones are 503', async () => {
  await using down = await startTokenGateway(BUDGET, { now });
  const token = `right-${randomUUID()}`;
  down.issue(token, 'read');
  const get = async (authorization: string) => {
    const response = await fetch(`${down.gateway.url}${CAPABILITIES}`, {
      headers: { authorization, 'x-forwarded-for': nextClient() },
    });
    const body = (await response.json()) as unknown;
    return {
      status: response.status,
      code: response.status === 200 ? undefined : ErrorBody.parse(body).error.code,
    };
  };
  await down.postgres.stop();
  expect(await get(bearer(token))).toEqual({ status: 200, code: undefined });
  expect(await get(bearer(wrongToken()))).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
}, 60_000);
