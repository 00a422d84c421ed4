/**
 * @pag/sdk's OAuth credential with a token that really expires: a stack whose access tokens live
 * ACCESS_TOKEN_TTL_SECONDS, an SDK whose clock stands still (so it does not renew before expiry
 * and meets the 401 an expired token gets), and the call that follows: refreshed once, repeated,
 * answered, with the rotated refresh token handed to `onSession`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { OAuthSession } from '@pag/sdk';
import { connect } from '@pag/sdk/node';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { consentAs } from './support/mcp-oauth.ts';

const OWNER = { email: 'sdk-refresh@example.test', password: 'sdk refresh long password' };
const TTL_SECONDS = 3;

let stack: StackProcess;

beforeAll(async () => {
  stack = await startStackProcess({ env: { ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) } });
  const made = await pagCommand(() => stack.dataDir)(
    'owner',
    'create',
    '--email',
    OWNER.email,
    '--password',
    OWNER.password,
  );
  expect(made.code).toBe(0);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

/** Resolves once `token` is refused by the API: its expiry, seen from the outside. */
async function expired(token: string): Promise<void> {
  for (;;) {
    const answer = await fetch(`${stack.url}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (answer.status === 401) return;
    // The next look when the token's lifetime may have run out; no event announces an expiry.
    await new Promise((resolve) => setTimeout(resolve, (TTL_SECONDS * 1000) / 3));
  }
}

test('an expired OAuth access token is refreshed after its 401 and the call succeeds', async () => {
  const sessions: OAuthSession[] = [];
  const sent: { authorization: string | null; status: number }[] = [];
  const frozen = Date.now();
  const client = await connect(stack.url, {
    now: () => frozen,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      sent.push({ authorization: new Headers(init?.headers).get('authorization'), status: response.status });
      return response;
    },
    oauth: {
      scopes: ['read'],
      onSession: (session) => {
        sessions.push(session);
      },
      openAuthorizationUrl: async (url) => {
        const { callback } = await consentAs(stack.url, OWNER, new URL(url));
        await fetch(callback);
      },
    },
  });
  await client.capabilities();
  const first = sent.findLast((request) => request.authorization !== null)?.authorization ?? '';
  expect(first).toMatch(/^Bearer pag_at_/);
  await expired(first.slice('Bearer '.length));

  const before = sent.length;
  expect(await client.capabilities()).toMatchObject({ tokenKind: 'oauth', scopes: ['read'] });
  const calls = sent.slice(before).filter((request) => request.authorization !== null);
  expect(calls.map((request) => request.status)).toEqual([401, 200]);
  expect(calls[1]?.authorization).not.toBe(first);
  expect(sessions).toHaveLength(2);
  expect(sessions[1]?.refreshToken).not.toBe(sessions[0]?.refreshToken);
}, 60_000);
