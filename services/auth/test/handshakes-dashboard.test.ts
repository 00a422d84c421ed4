/**
 * /dashboard/handshakes as an owner uses it, through HTTP with a cookie jar: the queue shows the
 * agent's words and what each requested scope grants, approval narrows the scopes and shows the
 * token once (no-store), denial and claiming work, every decision is announced on the bus, and an
 * owner never sees, approves, denies or claims another owner's request.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HandshakeCreated, HandshakeDecidedEvent } from '@pag/contracts';
import { AuthSubjects, describeScope, EventSubjects, MessageHeaders } from '@pag/contracts';
import type { Page } from '@pag/testkit';
import { Browser, csrfOf, signUp as signUpOwner } from '@pag/testkit';
import { byOperator } from '../src/events/audit-decisions.ts';
import { introspect } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let alice: Browser;
let bob: Browser;
const decisions: HandshakeDecidedEvent[] = [];

/** A new owner's browser, signed up through the form. */
async function signUp(email: string): Promise<Browser> {
  const browser = new Browser(t.url);
  await signUpOwner(browser, { email, password: 'correct horse battery staple' });
  return browser;
}

let agents = 0;
async function requestAccess(overrides: Record<string, unknown> = {}): Promise<HandshakeCreated> {
  agents += 1;
  return t.bus.request<HandshakeCreated>(
    AuthSubjects.handshakeCreate,
    {
      params: {},
      query: {},
      body: {
        agentId: `calendar-bot-${agents}@host`,
        requestedScopes: ['read', 'availability'],
        message: `Calendar bot ${agents}: wants to find meeting slots.`,
        ...overrides,
      },
    },
    { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: `192.0.2.${agents}` } },
  );
}

const statusOf = async (handshakeId: string) =>
  (
    await t.bus.request<{ status: string }>(
      AuthSubjects.handshakeStatus,
      { params: { handshakeId }, query: {}, body: null },
      { timeoutMs: 10_000 },
    )
  ).status;

const page = async (browser: Browser, path: string): Promise<Page> => browser.open(path);

let aliceFirst: HandshakeCreated;
beforeAll(async () => {
  t = await startTestAuth();
  await t.bus.subscribe(EventSubjects.handshakeDecided, (message) => {
    decisions.push(message.data as HandshakeDecidedEvent);
  });
  alice = await signUp('alice@example.test');
  // Alice is the only owner: this request is hers at once.
  aliceFirst = await requestAccess({ message: 'Bot <b>one</b> & co.' });
  bob = await signUp('bob@example.test');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('the queue', () => {
  test('shows the agent, its message (escaped), each scope in plain words and when it asked', async () => {
    const queue = await page(alice, '/dashboard/handshakes');
    expect(queue.status).toBe(200);
    expect(queue.headers.get('cache-control')).toBe('no-store');
    expect(queue.html).toContain('calendar-bot-1@host');
    expect(queue.html).toContain('Bot &lt;b&gt;one&lt;/b&gt; &amp; co.');
    for (const scope of ['read', 'availability'])
      expect(queue.html).toContain((describeScope(scope) ?? '').replaceAll("'", '&#39;'));
    expect(queue.html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z">/);
    expect(queue.html).toContain(`/dashboard/handshakes/${aliceFirst.handshakeId}/approve`);
  });

  test('another owner does not see it, and can neither approve nor deny it', async () => {
    const queue = await page(bob, '/dashboard/handshakes');
    expect(queue.html).not.toContain(aliceFirst.handshakeId);
    expect(queue.html).not.toContain('calendar-bot-1@host');
    const csrf = csrfOf(queue.html);
    for (const action of ['approve', 'deny']) {
      const refused = await bob.post(`/dashboard/handshakes/${aliceFirst.handshakeId}/${action}`, {
        _csrf: csrf,
        scope_read: 'on',
      });
      expect(refused.status).toBe(404);
      expect(await refused.text()).not.toContain('calendar-bot-1@host');
    }
    expect(await statusOf(aliceFirst.handshakeId)).toBe('pending');
  });

  test('a POST without the CSRF token is refused', async () => {
    const refused = await alice.post(`/dashboard/handshakes/${aliceFirst.handshakeId}/deny`, {});
    expect(refused.status).toBe(403);
    expect(await statusOf(aliceFirst.handshakeId)).toBe('pending');
  });
});

describe('approving', () => {
  test('a bad limit or no scope at all is refused on the queue, the request still pending', async () => {
    const queue = await page(alice, '/dashboard/handshakes');
    const action = `${aliceFirst.handshakeId}/approve`;
    const badLimit = await alice.submit(queue, { daily: 'lots' }, action);
    expect(badLimit.status).toBe(400);
    expect(badLimit.html).toContain('The daily limit must be a whole number');
    const noScope = await alice.submit(queue, { scope_read: '', scope_availability: '' }, action);
    expect(noScope.status).toBe(400);
    expect(noScope.html).toContain('Choose at least one scope.');
    expect(await statusOf(aliceFirst.handshakeId)).toBe('pending');
  });

  test('with narrowed scopes and a limit shows the token once; it grants exactly that', async () => {
    const queue = await page(alice, '/dashboard/handshakes');
    const shown = await alice.submit(
      queue,
      { scope_availability: '', daily: '100' },
      `${aliceFirst.handshakeId}/approve`,
    );
    expect(shown.status).toBe(201);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const token = /<p class="secret"[^>]*>([^<]+)<\/p>/.exec(shown.html)?.[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(shown.html).toContain('100 requests per day');
    const answer = (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as Record<
      string,
      unknown
    >;
    expect(answer).toMatchObject({ active: true, scope: 'read', token_kind: 'handshake', limit_daily: 100 });
    expect(answer.agent_name).toBe('calendar-bot-1@host');
    expect(await statusOf(aliceFirst.handshakeId)).toBe('approved');
    expect(decisions).toContainEqual(
      expect.objectContaining({ handshakeId: aliceFirst.handshakeId, status: 'approved' }),
    );

    const after = await page(alice, '/dashboard/handshakes');
    expect(after.html).not.toContain(token);
    expect(after.html).not.toContain(`${aliceFirst.handshakeId}/approve`);
    expect(after.html).toMatch(/calendar-bot-1@host[\s\S]*approved/);

    // Revoking its agent (as /dashboard/tokens does) makes the request read denied.
    const agentId = String(answer.agent_id);
    const accountId = String(answer.account_id);
    await t.auth.core.agents.revoke(accountId, agentId, byOperator());
    expect(await statusOf(aliceFirst.handshakeId)).toBe('denied');
    expect((await page(alice, '/dashboard/handshakes')).html).toContain(
      'approved, then its token was revoked',
    );
  });

  test('a decided request cannot be approved again', async () => {
    const queue = await page(alice, '/dashboard/handshakes');
    const again = await alice.post(`/dashboard/handshakes/${aliceFirst.handshakeId}/approve`, {
      _csrf: csrfOf(queue.html),
      scope_read: 'on',
    });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('already decided');
  });
});

describe('claiming and denying (two owners: new requests wait unassigned)', () => {
  test('the claim link pre-fills the form; claiming puts it in the queue; denying reads denied', async () => {
    const created = await requestAccess();
    expect((await page(alice, '/dashboard/handshakes')).html).not.toContain(created.handshakeId);
    expect((await page(bob, '/dashboard/handshakes')).html).not.toContain(created.handshakeId);

    const claimForm = await page(bob, created.claimUrl);
    expect(claimForm.status).toBe(200);
    const code = new URL(created.claimUrl).searchParams.get('code') ?? '';
    expect(claimForm.html).toContain(`value="${code}"`);
    const queue = await bob.submit(claimForm, {}, '/claim');
    expect(queue.url.pathname).toBe('/dashboard/handshakes');
    expect(queue.html).toContain('You claimed this request');
    expect(queue.html).toContain(`${created.handshakeId}/deny`);

    // Alice, with the same link, fails as with a code that never existed.
    const taken = await alice.submit(await page(alice, created.claimUrl), {}, '/claim');
    const unknown = await alice.submit(
      await page(alice, '/dashboard/handshakes/claim'),
      { code: 'no-such-code' },
      '/claim',
    );
    expect(taken.status).toBe(404);
    expect(unknown.status).toBe(404);
    const message = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(taken.html)).toBe('No pending handshake waits for this code.');
    expect(message(unknown.html)).toBe(message(taken.html));

    const denied = await bob.submit(queue, {}, `${created.handshakeId}/deny`);
    expect(denied.url.pathname).toBe('/dashboard/handshakes');
    expect(await statusOf(created.handshakeId)).toBe('denied');
    expect(decisions).toContainEqual(
      expect.objectContaining({ handshakeId: created.handshakeId, status: 'denied' }),
    );
  });

  test('the token expires 90 days after approval unless the owner picks a day; a past day is refused', async () => {
    const DAY_MS = 24 * 3600 * 1000;
    const dateIn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
    const claimed = async () => {
      const created = await requestAccess();
      const queue = await bob.submit(await page(bob, created.claimUrl), {}, '/claim');
      expect(queue.html).toContain('You claimed this request');
      return { id: created.handshakeId, queue };
    };
    const expiryOf = async (shown: Page) => {
      const token = /<p class="secret"[^>]*>([^<]+)<\/p>/.exec(shown.html)?.[1] ?? '';
      const answer = (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as { exp?: number };
      return (answer.exp ?? 0) * 1000;
    };

    const first = await claimed();
    // The form offers the default: the day 90 days from now.
    expect(first.queue.html).toContain(`name="expires" type="date" value="${dateIn(90)}"`);
    const past = await bob.submit(first.queue, { expires: '2020-01-01' }, `${first.id}/approve`);
    expect(past.status).toBe(400);
    expect(past.html).toContain('The expiry must be in the future.');
    expect(await statusOf(first.id)).toBe('pending');
    const kept = await bob.submit(first.queue, {}, `${first.id}/approve`);
    expect(kept.status).toBe(201);
    expect(kept.html).toContain('It works until');
    // Through the end of that day (UTC): 90 to 91 days from now.
    const defaultExpiry = await expiryOf(kept);
    expect(defaultExpiry).toBeGreaterThan(Date.now() + 90 * DAY_MS - 60_000);
    expect(defaultExpiry).toBeLessThanOrEqual(Date.now() + 91 * DAY_MS);

    const second = await claimed();
    const chosen = await bob.submit(second.queue, { expires: dateIn(10) }, `${second.id}/approve`);
    expect(chosen.status).toBe(201);
    const end = Date.parse(`${dateIn(10)}T00:00:00Z`) + DAY_MS;
    expect(Math.abs((await expiryOf(chosen)) - end)).toBeLessThan(5_000);
  });

  test('an owner who is not signed in is sent to the sign-in page', async () => {
    const stranger = new Browser(t.url);
    const response = await stranger.get('/dashboard/handshakes/claim?code=x');
    expect(response.status).toBe(303);
    // …and brought back to the claim link once signed in.
    expect(response.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent('/dashboard/handshakes/claim?code=x')}`,
    );
  });
});
