/**
 * /dashboard/tokens through the auth service, as an owner's browser uses it: sign in, create a
 * scoped token (shown once, in the POST's own answer), see every agent with its usage against
 * its limits (the gateway's figures, answered on the test bus by this test), revoke. Mistakes
 * re-render the form; forged POSTs are refused; one owner never sees or touches another's agents.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AgentUsage, UsageQuery } from '@pag/contracts';
import { EventSubjects, GatewaySubjects, ScopeCatalogue } from '@pag/contracts';
import type { Subscription } from '@pag/kit';
import type { Page } from '@pag/testkit';
import { Browser, csrfOf, locationOf } from '@pag/testkit';
import { createOwner, introspect, OWNER, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

const OTHER = { email: 'other@example.test', password: 'another long password' };
const LAST_USED = '2026-11-20T08:30:00.000Z';

let t: TestAuth;
let ownerId: string;
let otherId: string;
let usageAnswers: Subscription | undefined;
const usageQueries: UsageQuery[] = [];

/** The gateway's side of usage.get, with known figures: 7 today, 42 this month. */
async function answerUsage(reply: (query: UsageQuery) => unknown = figures): Promise<void> {
  await usageAnswers?.close();
  usageAnswers = await t.bus.handle<UsageQuery>(GatewaySubjects.usageGet, (message) => {
    usageQueries.push(message.data);
    return reply(message.data);
  });
}

function figures(query: UsageQuery): { agents: AgentUsage[] } {
  return {
    agents: query.clientIds.map((clientId) => ({ clientId, today: 7, thisMonth: 42, lastUsedAt: LAST_USED })),
  };
}

beforeAll(async () => {
  t = await startTestAuth();
  ownerId = await createOwner(t.db);
  otherId = await createOwner(t.db, OTHER);
  await answerUsage();
}, 60_000);
afterAll(async () => {
  await usageAnswers?.close();
  await t?.close();
});

async function signIn(owner = OWNER): Promise<{ browser: Browser; page: Page }> {
  const browser = new Browser(t.url);
  const page = await browser.submit(await browser.open('/login'), owner);
  expect(page.url.pathname).toBe('/dashboard/tokens');
  expect(page.status).toBe(200);
  return { browser, page };
}

const tokenOf = (html: string) => /<code id="new-token">([^<]+)<\/code>/.exec(html)?.[1];
const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1]?.replaceAll('&quot;', '"');
const rowOf = (html: string, agentId: string) =>
  new RegExp(`<tr id="${agentId}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';

async function activeScope(token: string): Promise<unknown> {
  const answer = (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as Record<string, unknown>;
  return answer.active === true ? answer.scope : false;
}

describe('the tokens page', () => {
  test('needs a signed-in owner', async () => {
    const response = await new Browser(t.url).get('/dashboard/tokens');
    expect(response.status).toBe(303);
    expect(locationOf(response, t.url)).toBe(`/login?next=${encodeURIComponent('/dashboard/tokens')}`);
  });

  test('offers every scope of the catalogue with its meaning, every field labelled', async () => {
    const { page } = await signIn();
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain(OWNER.email);
    for (const [scope, { description }] of Object.entries(ScopeCatalogue)) {
      expect(page.html).toContain(`<code>${scope}</code>`);
      expect(page.html).toContain(description.replaceAll("'", '&#39;'));
    }
    for (const input of page.html.matchAll(/<input\b[^>]*\bid="([^"]+)"/g))
      expect(page.html).toContain(`<label for="${input[1]}">`);
  });
});

describe('creating a token', () => {
  test('shows it once in the answer to the POST; it works with the chosen scopes and limits', async () => {
    const { browser, page } = await signIn();
    const nextYear = `${new Date().getUTCFullYear() + 1}-06-30`;
    const created = await browser.submit(
      page,
      {
        name: 'CI <bot> & co',
        'scope-read': 'on',
        'scope-chat': 'on',
        services: 'github calendar',
        resource: '',
        'service-write': 'on',
        daily: '100',
        monthly: '1000',
        expires: nextYear,
      },
      '/dashboard/tokens',
    );
    expect(created.status).toBe(201);
    expect(created.url.pathname).toBe('/dashboard/tokens');
    expect(created.url.search).toBe('');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.html).toContain('CI &lt;bot&gt; &amp; co');
    expect(created.html).not.toContain('<bot>');
    const token = tokenOf(created.html);
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(created.headers.getSetCookie().join('\n')).not.toContain(token);

    const agent = (await t.auth.core.agents.list(ownerId)).find((a) => a.name === 'CI <bot> & co');
    expect(agent).toMatchObject({
      kind: 'dashboard',
      scopes: ['chat', 'read', 'services:github:write', 'services:calendar:write'],
      dailyLimit: 100,
      monthlyLimit: 1000,
      expiresAt: new Date(`${new Date().getUTCFullYear() + 1}-07-01T00:00:00.000Z`),
    });
    expect(await activeScope(token ?? '')).toBe('chat read services:github:write services:calendar:write');

    // Shown once: the page afterwards lists the agent with its usage, never the token.
    const again = await browser.open('/dashboard/tokens');
    expect(again.status).toBe(200);
    expect(again.html).not.toContain(token);
    const row = rowOf(again.html, agent?.id ?? '');
    expect(row).toContain('Dashboard token');
    expect(row).toContain('Today: 7 of 100');
    expect(row).toContain('This month: 42 of 1000');
    expect(row).toContain('2026-11-20 08:30 UTC');
    expect(row).toContain(`active, expires <time datetime="${nextYear.slice(0, 4)}-07-01T00:00:00.000Z">`);
    expect(usageQueries.at(-1)).toEqual({
      accountId: ownerId,
      clientIds: expect.arrayContaining([agent?.clientId]),
    });
  });

  test('a service resource scope and no limits', async () => {
    const { browser, page } = await signIn();
    const created = await browser.submit(
      page,
      { name: 'Issue reader', services: 'github', resource: 'issues', 'service-read': 'on' },
      '/dashboard/tokens',
    );
    expect(created.status).toBe(201);
    expect(await activeScope(tokenOf(created.html) ?? '')).toBe('services:github:issues:read');
    const agent = (await t.auth.core.agents.list(ownerId)).find((a) => a.name === 'Issue reader');
    expect(agent).toMatchObject({ dailyLimit: null, monthlyLimit: null, expiresAt: null });
    expect(rowOf(created.html, agent?.id ?? '')).toContain('Today: 7 (no limit)');
  });

  test.each([
    [{ name: 'No scope' }, /Choose at least one scope/],
    [{ name: ' ', 'scope-read': 'on' }, /name must have/],
    [{ name: 'bell\u0007bot', 'scope-read': 'on' }, /name must not contain control characters/],
    [{ name: 'escape\u001b[2Jbot', 'scope-read': 'on' }, /name must not contain control characters/],
    [{ name: 'tab\tbot', 'scope-read': 'on' }, /name must not contain control characters/],
    [{ name: 'c1\u009bbot', 'scope-read': 'on' }, /name must not contain control characters/],
    [{ name: 'gpj.\u202eexe', 'scope-read': 'on' }, /name must not contain control characters/],
    [{ name: 'Bad limit', 'scope-read': 'on', daily: 'lots' }, /daily limit must be a whole number/],
    [{ name: 'Zero', 'scope-read': 'on', monthly: '0' }, /monthly limit must be a whole number from 1/],
    [{ name: 'Past', 'scope-read': 'on', expires: '2020-01-01' }, /expiry must be in the future/],
    [
      { name: 'Not a date', 'scope-read': 'on', expires: '2026-02-30' },
      /expiry must be a date written YYYY-MM-DD/,
    ],
    [
      { name: 'Caps', services: 'GitHub', 'service-read': 'on' },
      /"GitHub" is not a service or resource name/,
    ],
    [{ name: 'No access', services: 'github' }, /Choose read, write or both/],
    [{ name: 'No service', 'service-write': 'on' }, /Name the connected service/],
  ])('%j re-renders the form with the message and what was typed', async (values, message) => {
    const { browser, page } = await signIn();
    const before = (await t.auth.core.agents.list(ownerId)).length;
    const refused = await browser.submit(page, values, '/dashboard/tokens');
    expect(refused.status).toBe(400);
    expect(alertOf(refused.html)).toMatch(message);
    expect(tokenOf(refused.html)).toBeUndefined();
    expect(refused.html).toContain(
      `id="name" name="name" type="text" required maxlength="100" value="${values.name}"`,
    );
    for (const [field, value] of Object.entries(values)) {
      if (value === 'on')
        expect(refused.html).toMatch(new RegExp(`id="${field}" name="${field}" value="on"[^>]* checked>`));
      else expect(refused.html).toContain(`value="${value}"`);
    }
    expect((await t.auth.core.agents.list(ownerId)).length).toBe(before);
  });
});

describe('the agents table', () => {
  test('lists agents of every kind with kind, scopes, limits and status', async () => {
    const { agents } = t.auth.core;
    const { clientId } = await obtainTokens(t.url, { scope: 'read' });
    const oauth = await agents.findByClient(ownerId, clientId);
    const handshake = await agents.createAgent({
      accountId: ownerId,
      kind: 'handshake',
      name: 'Handshake agent',
      scopes: ['availability'],
    });
    const device = await agents.createAgent({
      accountId: ownerId,
      kind: 'device',
      name: 'Laptop device',
      scopes: ['knowledge'],
      monthlyLimit: 500,
    });
    const { page } = await signIn();
    expect(rowOf(page.html, oauth?.id ?? '')).toContain('OAuth app');
    expect(rowOf(page.html, handshake.id)).toMatch(/Handshake[\s\S]*<code>availability<\/code>/);
    expect(rowOf(page.html, device.id)).toMatch(/Device[\s\S]*This month: 42 of 500[\s\S]*>active</);
  });

  test('says "usage unavailable" when no gateway answers, or its answer is malformed', async () => {
    await usageAnswers?.close();
    usageAnswers = undefined;
    try {
      const { page } = await signIn();
      expect(page.status).toBe(200);
      expect(page.html).toContain('Usage unavailable: the gateway did not answer.');
      expect(page.html).not.toContain('Today: 7');
      await answerUsage(() => ({ agents: [{ clientId: 'x', today: -1 }] }));
      const malformed = await signIn();
      expect(malformed.page.status).toBe(200);
      expect(malformed.page.html).toContain('usage unavailable');
    } finally {
      await answerUsage();
    }
  });
});

describe('revoking', () => {
  test('is immediate: the token stops working, every cache is told, the row says revoked', async () => {
    const { agents } = t.auth.core;
    const agent = await agents.createAgent({
      accountId: ownerId,
      kind: 'dashboard',
      name: 'To revoke',
      scopes: ['chat'],
    });
    const token = await agents.issueToken(agent);
    const events: unknown[] = [];
    const subscription = await t.bus.subscribe(EventSubjects.tokenRevoked, (message) => {
      events.push(message.data);
    });
    try {
      const { browser, page } = await signIn();
      const after = await browser.submit(page, {}, `/dashboard/tokens/${agent.id}/revoke`);
      expect(after.status).toBe(200);
      expect(after.url.pathname + after.url.search).toBe(`/dashboard/tokens?revoked=${agent.id}`);
      expect(after.html).toContain('Revoked “To revoke”: its tokens no longer work.');
      expect(rowOf(after.html, agent.id)).toMatch(/revoked <time/);
      expect(rowOf(after.html, agent.id)).not.toContain('Revoke');
      expect(await activeScope(token.value)).toBe(false);
      expect(events).toEqual([expect.objectContaining({ accountId: ownerId, clientId: agent.clientId })]);
    } finally {
      await subscription.close();
    }
  });
});

describe('forged requests', () => {
  test('a POST without the CSRF token, or with another, is refused and changes nothing', async () => {
    const { agents } = t.auth.core;
    const agent = await agents.createAgent({
      accountId: ownerId,
      kind: 'dashboard',
      name: 'Kept',
      scopes: ['chat'],
    });
    const { browser } = await signIn();
    const before = (await agents.list(ownerId)).length;
    const create = await browser.post('/dashboard/tokens', { name: 'Forged', 'scope-full': 'on' });
    expect(create.status).toBe(403);
    const wrong = await browser.post('/dashboard/tokens', {
      _csrf: 'A'.repeat(43),
      name: 'Forged',
      'scope-full': 'on',
    });
    expect(wrong.status).toBe(403);
    const revoke = await browser.post(`/dashboard/tokens/${agent.id}/revoke`, {});
    expect(revoke.status).toBe(403);
    expect((await agents.list(ownerId)).length).toBe(before);
    expect((await agents.get(ownerId, agent.id)).status).toBe('active');
    // Without the owner's cookies at all: not signed in.
    const anonymous = await new Browser(t.url).post(`/dashboard/tokens/${agent.id}/revoke`, { _csrf: 'x' });
    expect(locationOf(anonymous, t.url)).toBe('/login');
  });
});

describe('tenancy', () => {
  test("another owner neither sees nor revokes an owner's agents, and is asked usage only for its own", async () => {
    const { agents } = t.auth.core;
    const mine = await agents.createAgent({
      accountId: ownerId,
      kind: 'dashboard',
      name: 'Owner A secret agent',
      scopes: ['full'],
    });
    const token = await agents.issueToken(mine);
    const theirs = await agents.createAgent({
      accountId: otherId,
      kind: 'dashboard',
      name: 'B bot',
      scopes: ['chat'],
    });
    const { browser, page } = await signIn(OTHER);
    expect(page.html).toContain('B bot');
    expect(page.html).not.toContain(mine.id);
    expect(page.html).not.toContain('Owner A secret agent');
    expect(usageQueries.at(-1)).toEqual({ accountId: otherId, clientIds: [theirs.clientId] });

    const refused = await browser.post(`/dashboard/tokens/${mine.id}/revoke`, { _csrf: csrfOf(page.html) });
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain(`No agent ${mine.id} among yours.`);
    expect((await agents.get(ownerId, mine.id)).status).toBe('active');
    expect(await activeScope(token.value)).toBe('full');

    const after = await browser.open(`/dashboard/tokens?revoked=${mine.id}`);
    expect(after.html).not.toContain('Owner A secret agent');
  });
});
