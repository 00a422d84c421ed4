/**
 * @pag/sdk against the embedded stack as `pnpm start` runs it: each way in (a `pag token create`
 * token, the handshake with proof approved by the owner with `pag handshake approve`, OAuth with
 * the owner's login and consent and the SDK's loopback redirect server, an Ed25519 device approved
 * with `pag device approve`), then context, memory, knowledge search, chat streamed by the offline
 * brain, a connected service (a loopback stand-in), triggers, 429 with Retry-After, OAuth refresh
 * before expiry, and a redirect never followed. The refresh of a token that really expired (a 401)
 * is test/sdk-refresh.test.ts, on a stack with short-lived tokens.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { HANDSHAKE_POLL_INTERVAL_SECONDS } from '@pag/contracts';
import { type ChatEvent, type DeviceApproval, type OAuthSession, PagError } from '@pag/sdk';
import { connect } from '@pag/sdk/node';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { operationProblems } from '../packages/sdk/test/document-check.ts';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';
import { consentAs } from './support/mcp-oauth.ts';

const OWNER = { email: 'sdk-owner@example.test', password: 'sdk owner long password' };
const GITHUB_KEY = 'ghp_sdkTestKey0123456789abcdef';

let stack: StackProcess;
let github: FakeUpstream;
let stdin = '';

const pag = async (...argv: string[]) => {
  const result = await pagCommand(
    () => stack.dataDir,
    () => stdin,
  )(...argv);
  if (result.code !== 0)
    throw new Error(`pag ${argv.join(' ')}: ${[...result.out, ...result.err].join('\n')}`);
  return result.out;
};

async function createToken(scopes: string, ...limits: string[]): Promise<string> {
  const out = await pag(
    'token',
    'create',
    '--owner',
    OWNER.email,
    '--name',
    `sdk ${scopes}`,
    '--scopes',
    scopes,
    ...limits,
  );
  return out.at(-1) ?? '';
}

beforeAll(async () => {
  github = await FakeUpstream.start();
  stack = await startStackProcess({ env: { CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url }) } });
  await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password, '--plan', 'pro');
  stdin = 'Espresso, no sugar, before 9 am.\n';
  await pag('knowledge', 'add', '--owner', OWNER.email, '--title', 'Coffee', '--kind', 'preferences');
  stdin = `${GITHUB_KEY}\n`;
  await pag('connection', 'add', '--owner', OWNER.email, '--service', 'github', '--label', 'work');
  stdin = '';
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
});

test('the operation table matches the document the stack serves', async () => {
  const document = (await (await fetch(`${stack.url}/openapi.json`)).json()) as Record<string, unknown>;
  expect(operationProblems(document)).toEqual([]);
});

describe('connecting', () => {
  test('with a token: capabilities and context', async () => {
    const client = await connect(stack.url, { token: await createToken('read') });
    expect(await client.capabilities()).toMatchObject({ scopes: ['read'], tokenKind: 'dashboard' });
    const context = await client.context();
    expect(context.user).not.toBeNull();
    expect(context.persona).not.toBeNull();
  });

  test('by handshake with proof: told where to approve, collects its own token once approved', async () => {
    const told: string[] = [];
    const client = await connect(stack.url, {
      handshake: {
        agentId: 'sdk-agent@test',
        requestedScopes: ['read'],
        message: 'The SDK test agent.',
        onApprovalNeeded: async ({ handshakeId, claimUrl, instructions }) => {
          told.push(instructions);
          expect(instructions).toContain(claimUrl);
          await pag('handshake', 'approve', '--owner', OWNER.email, '--id', handshakeId);
        },
      },
    });
    expect(told).toHaveLength(1);
    expect(client.handshakeToken).toMatchObject({ tokenType: 'Bearer', scopes: ['read'] });
    expect(await client.capabilities()).toMatchObject({ scopes: ['read'], tokenKind: 'handshake' });
  });

  test('by handshake, still pending: waits as the status says, then collects once the owner approves', async () => {
    let handshakeId = '';
    const waits: number[] = [];
    const client = await connect(stack.url, {
      // The owner decides while the agent waits out its first interval.
      sleep: async (ms) => {
        waits.push(ms);
        await pag('handshake', 'approve', '--owner', OWNER.email, '--id', handshakeId);
      },
      handshake: {
        agentId: 'sdk-patient@test',
        requestedScopes: ['read'],
        message: 'The patient SDK test agent.',
        onApprovalNeeded: (approval) => {
          handshakeId = approval.handshakeId;
        },
      },
    });
    expect(waits).toEqual([HANDSHAKE_POLL_INTERVAL_SECONDS * 1000]);
    expect(await client.capabilities()).toMatchObject({ tokenKind: 'handshake' });
  });

  test('by handshake, denied: ACCESS_DENIED', async () => {
    const denied = connect(stack.url, {
      handshake: {
        agentId: 'sdk-denied@test',
        requestedScopes: ['read'],
        message: 'The SDK test agent the owner turns down.',
        onApprovalNeeded: async ({ handshakeId }) => {
          await pag('handshake', 'deny', '--owner', OWNER.email, '--id', handshakeId);
        },
      },
    });
    await expect(denied).rejects.toMatchObject({ code: 'ACCESS_DENIED' });
  });

  test('by device key, still pending: retries its assertion after the wait, then is in', async () => {
    let userCode = '';
    const waits: number[] = [];
    const client = await connect(stack.url, {
      sleep: async (ms) => {
        waits.push(ms);
        await pag('device', 'approve', '--owner', OWNER.email, '--user-code', userCode);
      },
      device: {
        deviceName: 'sdk patient laptop',
        onApprovalNeeded: (approval) => {
          userCode = approval.userCode;
        },
      },
    });
    expect(waits).toEqual([5000]);
    expect(await client.capabilities()).toMatchObject({ tokenKind: 'device' });
  });

  test('by device key: registers, is approved with the fingerprint it showed, gets tokens by assertion', async () => {
    let approval: DeviceApproval | undefined;
    const client = await connect(stack.url, {
      device: {
        deviceName: 'sdk laptop',
        onApprovalNeeded: async (shown) => {
          approval = shown;
          await pag(
            'device',
            'approve',
            '--owner',
            OWNER.email,
            '--user-code',
            shown.userCode,
            `--fingerprint=${shown.fingerprint}`,
          );
        },
      },
    });
    expect(approval?.instructions).toContain(approval?.fingerprint);
    expect(await client.capabilities()).toMatchObject({ tokenKind: 'device', scopes: ['read'] });
  });

  describe('by OAuth', () => {
    let sessions: OAuthSession[];
    let clock: number;
    let client: Awaited<ReturnType<typeof connect>>;

    beforeAll(async () => {
      sessions = [];
      clock = Date.now();
      client = await connect(stack.url, {
        now: () => clock,
        oauth: {
          scopes: ['read', 'knowledge'],
          clientName: 'SDK test agent',
          onSession: (session) => {
            sessions.push(session);
          },
          // The owner signs in and consents; the browser then lands on the SDK's loopback server.
          openAuthorizationUrl: async (url) => {
            const { callback, consentHtml } = await consentAs(stack.url, OWNER, new URL(url));
            expect(consentHtml).toContain('SDK test agent');
            expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
            expect((await fetch(callback)).status).toBe(200);
          },
        },
      });
    });

    test('discovers from the base URL, registers, authorizes with PKCE and calls the API', async () => {
      expect(await client.capabilities()).toMatchObject({ tokenKind: 'oauth' });
      expect((await client.capabilities()).scopes.sort()).toEqual(['knowledge', 'read']);
      expect(sessions).toHaveLength(1);
    });

    test('refreshes before the access token expires, keeping the rotated refresh token', async () => {
      clock += 2 * 3600 * 1000;
      await client.context();
      expect(sessions).toHaveLength(2);
      expect(sessions[1]?.refreshToken).not.toBe(sessions[0]?.refreshToken);
    });
  });
});

describe('using the API', () => {
  let client: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    client = await connect(stack.url, {
      token: await createToken('read knowledge chat services:github:read'),
    });
  });

  test('memory: written, in the context, deleted', async () => {
    const entry = await client.memory.write('Prefers meetings after 10:00.');
    expect(entry).toMatchObject({ content: 'Prefers meetings after 10:00.' });
    expect((await client.memory.list())?.map((note) => note.id)).toContain(entry.id);
    expect(await client.memory.delete(entry.id)).toMatchObject({ id: entry.id });
    expect((await client.memory.list())?.map((note) => note.id)).not.toContain(entry.id);
  });

  test('knowledge search finds the owner’s document', async () => {
    const found = await client.knowledge.search('espresso');
    expect(found.documents.map((document) => document.title)).toEqual(['Coffee']);
  });

  test('chat streams start, deltas and done from the offline brain', async () => {
    const events: ChatEvent[] = [];
    for await (const event of client.chatStream({ message: 'How do I take my coffee?' })) events.push(event);
    expect(events[0]?.event).toBe('start');
    expect(events.at(-1)?.event).toBe('done');
    const deltas = events.flatMap((event) => (event.event === 'delta' ? [event.data.text] : []));
    expect(deltas.length).toBeGreaterThan(0);
    const done = events.at(-1);
    if (done?.event !== 'done') throw new Error('no done event');
    expect(done.data.provider).toBe('offline');
    expect(deltas.join('')).toBe(done.data.reply);
    const again = await client.chat({ message: 'And tea?', conversationId: done.data.conversationId });
    expect(again.conversationId).toBe(done.data.conversationId);
  });

  test('services: listed, and called through the proxy with the owner’s key', async () => {
    expect((await client.services.list()).services.map((service) => service.name)).toContain('github');
    const answer = await client.services.call('github', 'GET', 'repos/octo/hello?per_page=2');
    // The stand-in answers 201 with JSON describing what arrived; the SDK passes both on.
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ method: 'GET' });
    const arrival = github.arrivals.at(-1);
    expect(arrival?.url).toBe('/repos/octo/hello?per_page=2');
    expect(arrival?.headers.authorization).toContain(GITHUB_KEY);
  });

  test('a redirect is never followed: REDIRECT_REFUSED naming the Location', async () => {
    const before = github.arrivals.length;
    const refused = await client.services
      .call('github', 'GET', 'repos/redirect')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PagError);
    expect(refused).toMatchObject({ code: 'REDIRECT_REFUSED', status: 302 });
    expect((refused as PagError).location).toContain('/elsewhere');
    expect(github.arrivals.length).toBe(before + 1);
  });

  test('triggers: created, listed, run now', async () => {
    const trigger = await client.triggers.create({
      name: 'Morning digest',
      kind: 'schedule',
      schedule: { type: 'daily', atHour: 8, atMinute: 30 },
      timezone: 'Europe/Berlin',
      actionType: 'ai_prompt',
      action: { prompt: 'What is on my plate today?', services: [] },
    });
    expect(trigger).toMatchObject({ status: 'active' });
    expect((await client.triggers.list()).triggers.map((item) => item.id)).toContain(trigger.id);
    expect(await client.triggers.run(trigger.id)).toMatchObject({ triggerId: trigger.id });
  });

  test('an error is a PagError with the gateway’s code, hint and requestId', async () => {
    const readOnly = await connect(stack.url, { token: await createToken('read') });
    const refused = await readOnly.chat({ message: 'hello' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PagError);
    expect(refused).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      hint: expect.any(String),
      requestId: expect.any(String),
    });
  });
});

describe('429 with Retry-After', () => {
  test('waits as Retry-After says, a bounded number of times, then throws the 429', async () => {
    const token = await createToken('read', '--daily', '1');
    const waits: number[] = [];
    let requests = 0;
    const client = await connect(stack.url, {
      token,
      retry: { maxAttempts: 3, maxWaitSeconds: Number.POSITIVE_INFINITY },
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    await client.context();
    const refused = await client.context().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED', status: 429 });
    const seconds = (refused as PagError).retryAfterSeconds ?? 0;
    expect(seconds).toBeGreaterThan(0);
    expect(requests).toBe(4);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(Math.abs(wait - seconds * 1000)).toBeLessThanOrEqual(2000);
  });

  test('a Retry-After longer than the client waits is thrown at once', async () => {
    const token = await createToken('read', '--daily', '1');
    let requests = 0;
    const client = await connect(stack.url, {
      token,
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    await client.capabilities();
    await expect(client.capabilities()).rejects.toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED' });
    expect(requests).toBe(2);
  });
});
