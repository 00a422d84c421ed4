/**
 * The handshake story: an agent without a token asks with a plain HTTP POST (as curl would),
 * polls the status, the owner approves on the dashboard with narrowed scopes, and the shared token
 * works with exactly those scopes. With a proof (made by the commands /auth.md shows), the agent
 * collects its token itself, once, and nobody else can. Then what goes wrong: a bad body names the field, an unknown
 * id is 404, a denial reads denied, with two owners a request waits until claimed and the other
 * owner cannot touch it, and a flood is cut off with 429 and Retry-After.
 *
 * Needs a target with no owner yet (run it first): Alice is the only owner until Bob signs up, so
 * every request made until then goes to her queue at once.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { HANDSHAKE_POLL_INTERVAL_SECONDS, TOKEN_PATTERN } from '@pag/contracts';
import type { Browser } from '@pag/testkit';
import { signUp } from '@pag/testkit';
import type { StoryTarget } from './target.ts';

const ALICE = { email: 'alice@example.test', password: 'correct horse battery staple' };
const BOB = { email: 'bob@example.test', password: 'another horse battery staple' };

interface ErrorBody {
  error: { code: string; message: string; hint?: string };
}

interface StatusBody {
  status?: string;
  interval?: number;
  tokenCollected?: boolean;
  token?: { accessToken: string; scopes: string[]; agentId: string; expiresAt: string };
}

export function handshakeStory(target: StoryTarget): void {
  let alice: Browser;
  const post = (path: string, body: unknown) =>
    target.fetch(`${target.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  let requests = 0;
  async function requestAccess(
    requestedScopes = ['read', 'availability'],
    proof: Record<string, string> = {},
  ) {
    requests += 1;
    const response = await post('/api/v1/handshakes', {
      agentId: `scheduler-${requests}@laptop`,
      requestedScopes,
      message: `Scheduler ${requests}: finds free slots in your calendar.`,
      ...proof,
    });
    expect(response.status).toBe(201);
    return (await response.json()) as {
      handshakeId: string;
      status: string;
      claimUrl: string;
      tokenDelivery: string;
      interval: number;
    };
  }

  async function statusOf(handshakeId: string, verifier?: string) {
    const response = await target.fetch(`${target.url}/api/v1/handshakes/${handshakeId}/status`, {
      headers: verifier === undefined ? {} : { 'Handshake-Verifier': verifier },
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as StatusBody & Partial<ErrorBody>,
    };
  }

  /** Runs the proof commands /auth.md shows for the handshake (openssl, as an agent on a shell would). */
  async function proofFromTheGuide(): Promise<{ verifier: string; challenge: string }> {
    const guide = await (await target.fetch(`${target.url}/auth.md`)).text();
    const handshakeSection = guide.slice(guide.indexOf('## 6. Without a usable token: the handshake'));
    const lines = handshakeSection.split('\n').filter((line) => /^(VERIFIER|CHALLENGE)=/.test(line));
    expect(lines).toHaveLength(2);
    const script = `${lines.join('\n')}\nprintf '%s %s' "$VERIFIER" "$CHALLENGE"`;
    const [verifier = '', challenge = ''] = execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split(
      ' ',
    );
    return { verifier, challenge };
  }

  const api = (path: string, token: string, init: RequestInit = {}) =>
    target.fetch(`${target.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });

  describe('handshakes', () => {
    beforeAll(async () => {
      alice = target.browser();
      await signUp(alice, ALICE);
    });

    describe('a token made on the dashboard', () => {
      test('carries the dashboard prefix, matches the scanner pattern and works', async () => {
        const form = await alice.open('/dashboard/tokens');
        const created = await alice.submit(
          form,
          { name: 'prefix check', 'scope-read': 'on' },
          '/dashboard/tokens',
        );
        expect(created.status).toBe(201);
        const token = /<code id="new-token">([^<]+)<\/code>/.exec(created.html)?.[1] ?? '';
        expect(token.startsWith('pag_dt_')).toBe(true);
        expect(token).toMatch(new RegExp(`^${TOKEN_PATTERN}$`));
        const capabilities = await api('/api/v1/tokens/me/capabilities', token);
        expect(capabilities.status).toBe(200);
        // One character of its tag changed: refused.
        const forged = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
        expect((await api('/api/v1/tokens/me/capabilities', forged)).status).toBe(401);
      });
    });

    describe('the handshake story', () => {
      let approved: { handshakeId: string; token: string; agentId: string } | undefined;

      test('create → pending → approved with narrowed scopes → the token works with exactly those', async () => {
        const created = await requestAccess();
        expect(created).toEqual({
          handshakeId: expect.stringMatching(/^hs_/),
          status: 'pending',
          claimUrl: expect.stringMatching(new RegExp(`^${target.url}/dashboard/handshakes/claim\\?code=`)),
          tokenDelivery: 'owner',
          interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
        });
        expect(await statusOf(created.handshakeId)).toEqual({
          status: 200,
          retryAfter: String(HANDSHAKE_POLL_INTERVAL_SECONDS),
          body: {
            handshakeId: created.handshakeId,
            status: 'pending',
            interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
          },
        });

        const queue = await alice.open('/dashboard/handshakes');
        expect(queue.html).toContain('scheduler-1@laptop');
        expect(queue.html).toContain('Scheduler 1: finds free slots in your calendar.');
        const shown = await alice.submit(queue, { scope_availability: '' }, `${created.handshakeId}/approve`);
        expect(shown.status).toBe(201);
        expect(shown.headers.get('cache-control')).toBe('no-store');
        const token = /<p class="secret"[^>]*>([^<]+)<\/p>/.exec(shown.html)?.[1] ?? '';
        expect(token.startsWith('pag_ht_')).toBe(true);
        expect(token).toMatch(new RegExp(`^${TOKEN_PATTERN}$`));

        expect((await statusOf(created.handshakeId)).body.status).toBe('approved');
        const capabilities = await api('/api/v1/tokens/me/capabilities', token);
        expect(capabilities.status).toBe(200);
        const granted = (await capabilities.json()) as {
          scopes: string[];
          tokenKind: string;
          agent: { id: string };
        };
        expect(granted).toMatchObject({ scopes: ['read'], tokenKind: 'handshake' });
        approved = { handshakeId: created.handshakeId, token, agentId: granted.agent.id };
        const chat = await api('/api/v1/brain/chat', token, {
          method: 'POST',
          body: JSON.stringify({ message: 'hello' }),
        });
        expect(chat.status).toBe(403);
        expect(((await chat.json()) as ErrorBody).error.code).toBe('INSUFFICIENT_SCOPE');
      });

      test('revoking the shared token on /dashboard/tokens makes the status read denied', async () => {
        if (approved === undefined) throw new Error('the story above did not get a token');
        const tokens = await alice.open('/dashboard/tokens');
        await alice.submit(tokens, {}, `${approved.agentId}/revoke`);
        expect((await api('/api/v1/tokens/me/capabilities', approved.token)).status).toBe(401);
        expect((await statusOf(approved.handshakeId)).body.status).toBe('denied');
      });

      test('the token of an approved handshake never appears in its status without a proof', async () => {
        if (approved === undefined) throw new Error('the story above did not get a token');
        const { body } = await statusOf(approved.handshakeId);
        expect(body.token).toBeUndefined();
        const refused = await statusOf(approved.handshakeId, randomBytes(32).toString('base64url'));
        expect(refused.status).toBe(403);
        expect(refused.body.error?.code).toBe('HANDSHAKE_PROOF_MISMATCH');
      });

      test('a denied request reads denied', async () => {
        const created = await requestAccess();
        const queue = await alice.open('/dashboard/handshakes');
        const after = await alice.submit(queue, {}, `${created.handshakeId}/deny`);
        expect(after.url.pathname).toBe('/dashboard/handshakes');
        expect((await statusOf(created.handshakeId)).body.status).toBe('denied');
      });
    });

    describe('the handshake with pickup', () => {
      test('the agent that made the proof collects its token itself, once; the owner has nothing to share', async () => {
        const { verifier, challenge } = await proofFromTheGuide();
        const created = await requestAccess(['read', 'availability'], {
          codeChallenge: challenge,
          codeChallengeMethod: 'S256',
        });
        expect(created).toMatchObject({ tokenDelivery: 'pickup', interval: HANDSHAKE_POLL_INTERVAL_SECONDS });
        const id = created.handshakeId;
        expect(await statusOf(id, verifier)).toEqual({
          status: 200,
          retryAfter: String(HANDSHAKE_POLL_INTERVAL_SECONDS),
          body: { handshakeId: id, status: 'pending', interval: HANDSHAKE_POLL_INTERVAL_SECONDS },
        });

        const queue = await alice.open('/dashboard/handshakes');
        expect(queue.html).toContain(
          'Once you approve, the agent collects its token itself: nothing to copy.',
        );
        const shown = await alice.submit(queue, { scope_availability: '' }, `${id}/approve`);
        expect(shown.status).toBe(201);
        expect(shown.html).toContain('Nothing to share');
        expect(shown.html).not.toMatch(/pag_ht_/);

        // Someone who only knows the id learns the status, never the token.
        expect((await statusOf(id)).body).toEqual({ handshakeId: id, status: 'approved' });
        const wrong = await statusOf(id, randomBytes(32).toString('base64url'));
        expect(wrong.status).toBe(403);
        expect(wrong.body.error).toMatchObject({ code: 'HANDSHAKE_PROOF_MISMATCH' });
        expect(wrong.body.error?.hint).toContain('Handshake-Verifier');

        const response = await target.fetch(`${target.url}/api/v1/handshakes/${id}/status`, {
          headers: { 'Handshake-Verifier': verifier },
        });
        expect(response.status).toBe(200);
        // The one answer with the token is kept by no cache.
        expect(response.headers.get('cache-control')).toBe('no-store');
        const collected = (await response.json()) as StatusBody;
        expect(collected).toMatchObject({ handshakeId: id, status: 'approved', tokenCollected: true });
        const token = collected.token?.accessToken ?? '';
        expect(token.startsWith('pag_ht_')).toBe(true);
        expect(token).toMatch(new RegExp(`^${TOKEN_PATTERN}$`));
        expect(collected.token).toMatchObject({ tokenType: 'Bearer', scopes: ['read'] });

        const capabilities = await api('/api/v1/tokens/me/capabilities', token);
        expect(capabilities.status).toBe(200);
        expect(await capabilities.json()).toMatchObject({ scopes: ['read'], tokenKind: 'handshake' });

        // Once only: the same proof again gets no token.
        const again = await statusOf(id, verifier);
        expect(again.body).toEqual({ handshakeId: id, status: 'approved', tokenCollected: true });
      });

      test('a proof with the method plain is refused, naming the field', async () => {
        const response = await post('/api/v1/handshakes', {
          agentId: 'plain@laptop',
          requestedScopes: ['read'],
          message: 'Plain.',
          codeChallenge: randomBytes(32).toString('base64url'),
          codeChallengeMethod: 'plain',
        });
        expect(response.status).toBe(400);
        const { error } = (await response.json()) as ErrorBody;
        expect(error).toMatchObject({ code: 'INVALID_REQUEST' });
        expect(error.message).toContain('codeChallengeMethod');
      });
    });

    describe('what the API refuses', () => {
      test.each([
        [{ requestedScopes: ['full'], message: 'm' }, 'agentId'],
        [{ agentId: 'a@b', requestedScopes: ['full'], message: 'm' }, 'requestedScopes'],
        [{ agentId: 'a@b', requestedScopes: ['read'] }, 'message'],
        [{ agentId: 'a@b', requestedScopes: ['read'], message: 'm', owner: 'x' }, 'owner'],
      ])('%j is 400 naming %s', async (body, field) => {
        const response = await post('/api/v1/handshakes', body);
        expect(response.status).toBe(400);
        const { error } = (await response.json()) as ErrorBody;
        expect(error.code).toBe('INVALID_REQUEST');
        expect(error.message).toContain(field);
      });

      test.each([['hs_AAAAAAAAAAAAAAAAAAAAAA'], ['not-a-handshake']])(
        'the status of %s is 404',
        async (id) => {
          const { status, body } = await statusOf(id);
          expect(status).toBe(404);
          expect(body.error?.code).toBe('NOT_FOUND');
        },
      );
    });

    describe('two owners', () => {
      test('a request waits unclaimed; the owner who claims it decides, the other cannot touch it', async () => {
        const bob = target.browser();
        await signUp(bob, BOB);
        const created = await requestAccess();
        expect((await alice.open('/dashboard/handshakes')).html).not.toContain(created.handshakeId);
        expect((await bob.open('/dashboard/handshakes')).html).not.toContain(created.handshakeId);

        const claimed = await bob.submit(await bob.open(created.claimUrl), {}, '/claim');
        expect(claimed.html).toContain(`${created.handshakeId}/approve`);
        // Alice can neither claim it with the same link, nor see, approve or deny it.
        const refusedClaim = await alice.submit(await alice.open(created.claimUrl), {}, '/claim');
        expect(refusedClaim.status).toBe(404);
        const aliceQueue = await alice.open('/dashboard/handshakes');
        expect(aliceQueue.html).not.toContain(created.handshakeId);
        const csrf = /name="_csrf" value="([^"]+)"/.exec(aliceQueue.html)?.[1] ?? '';
        for (const action of ['approve', 'deny']) {
          const refused = await alice.post(`/dashboard/handshakes/${created.handshakeId}/${action}`, {
            _csrf: csrf,
            scope_read: 'on',
          });
          expect(refused.status).toBe(404);
        }
        expect((await statusOf(created.handshakeId)).body.status).toBe('pending');

        await bob.submit(claimed, {}, `${created.handshakeId}/deny`);
        expect((await statusOf(created.handshakeId)).body.status).toBe('denied');
      });
    });

    describe('the creation limit', () => {
      test('a flood from one address is cut off with 429, Retry-After and when to retry', async () => {
        // Every request of the target came from this test's address; at most 30 pass in an hour.
        let refused: Response | undefined;
        for (let attempt = 0; attempt < 31 && refused === undefined; attempt += 1) {
          const response = await post('/api/v1/handshakes', {
            agentId: `flood-${attempt}@laptop`,
            requestedScopes: ['read'],
            message: 'Flooding.',
          });
          if (response.status === 429) refused = response;
          else expect(response.status).toBe(201);
        }
        if (refused === undefined) throw new Error('31 creations from one address, none refused');
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(3600);
        const { error } = (await refused.json()) as ErrorBody;
        expect(error.code).toBe('RATE_LIMITED');
        expect(error.message).toMatch(/at most 30 per hour for one owner\. Retry in \d+ s/);
      });
    });
  });
}
