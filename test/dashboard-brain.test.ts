/**
 * The owner fills the brain on the dashboard, against the stack as a user starts it (gateway,
 * auth, brain, audit; the pages ask the brain over the bus), and the agents see it through the
 * API: personas (created, edited, made default, chosen on an agent's row and at the approval of
 * a handshake and of a device, so the agent's context carries it), knowledge (typed, uploaded,
 * searched), identity, memory (each entry with the agent that wrote it, deleted one by one or per agent), the owner's
 * language model. Mistakes come back with what was typed; another owner reaches none of it by id;
 * every change is an owner action in the audit log, without its content.
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered, GatewayContext, KnowledgeBase } from '@pag/contracts';
import type { Page, StackProcess } from '@pag/testkit';
import { Browser, csrfOf, signUp, startStackProcess } from '@pag/testkit';
import { eventually } from '../packages/kit/src/testing/mod.ts';

const ALICE = { email: 'alice@brain-pages.test', password: 'correct horse battery staple' };
const BOB = { email: 'bob@brain-pages.test', password: 'another horse battery staple' };

let stack: StackProcess;
let alice: Browser;
let aliceCsrf: string;

beforeAll(async () => {
  // The key that seals owners' provider keys at rest (the brain refuses to store one without it).
  stack = await startStackProcess({ env: { BRAIN_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  alice = new Browser(stack.url);
  aliceCsrf = csrfOf((await signUp(alice, ALICE)).html);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

const decoded = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
const alertsOf = (html: string) =>
  [...html.matchAll(/role="alert">([^<]*)</g)].map((match) => decoded(match[1] ?? ''));

async function post(browser: Browser, path: string, fields: Record<string, string>, csrf = aliceCsrf) {
  const response = await browser.post(path, { _csrf: csrf, ...fields });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

async function api(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(`${stack.url}${path}`, { ...init, headers });
}

async function contextOf(token: string): Promise<GatewayContext> {
  const response = await api(token, '/api/v1/gateway/context');
  expect(response.status).toBe(200);
  return (await response.json()) as GatewayContext;
}

/** A dashboard token of the signed-in owner; returns the token and the agent's id. */
async function createToken(
  browser: Browser,
  csrf: string,
  name: string,
): Promise<{ token: string; agentId: string }> {
  const created = await post(
    browser,
    '/dashboard/tokens',
    { name, 'scope-read': 'on', 'scope-knowledge': 'on' },
    csrf,
  );
  expect(created.status).toBe(201);
  const token = /<code id="new-token">([^<]+)<\/code>/.exec(created.html)?.[1] ?? '';
  const agentId = new RegExp(`<tr id="(ag_[^"]+)">\\s*<td>${name}<`).exec(created.html)?.[1] ?? '';
  expect(agentId).not.toBe('');
  return { token, agentId };
}

/** The id of the persona named `name` on the personas page. */
function personaIdOf(page: Page | { html: string }, name: string): string {
  const id = new RegExp(`<tr id="persona-([^"]+)">\\s*<td><strong>${name}</strong>`).exec(page.html)?.[1];
  if (id === undefined) throw new Error(`no persona ${name} on:\n${page.html}`);
  return id;
}

let tutorId: string;
let ciBot: { token: string; agentId: string };

describe('personas', () => {
  test('a new account has a default persona, and the context carries it', async () => {
    const page = await alice.open('/dashboard/personas');
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<strong>[^<]+<\/strong> <span class="ok">default<\/span>/);
    ciBot = await createToken(alice, aliceCsrf, 'CI bot');
    const { persona } = await contextOf(ciBot.token);
    expect(persona?.soul_content.length).toBeGreaterThan(0);
  });

  test('create one; a name taken or instructions missing come back with what was typed', async () => {
    const soul = '# Tutor\n\nExplain step by step & check understanding.';
    const created = await post(alice, '/dashboard/personas', {
      name: 'Tutor',
      description: 'for learning',
      soul_content: soul.replaceAll('\n', '\r\n'),
    });
    expect(created.status).toBe(303);
    const list = await alice.open(created.location ?? '');
    expect(list.html).toContain('Saved “Tutor”.');
    tutorId = personaIdOf(list, 'Tutor');

    const taken = await post(alice, '/dashboard/personas', { name: 'Tutor', soul_content: 'Other words.' });
    expect(taken.status).toBe(409);
    expect(alertsOf(taken.html)).toHaveLength(1);
    expect(taken.html).toContain('\nOther words.</textarea>');

    const empty = await post(alice, '/dashboard/personas', { name: 'Empty', soul_content: '' });
    expect(empty.status).toBe(400);
    expect(alertsOf(empty.html)[0]).toContain('soul_content');
    expect(empty.html).toContain('value="Empty"');
  });

  test('chosen on the agent’s row of /dashboard/tokens: the agent’s context carries it', async () => {
    const set = await post(alice, `/dashboard/tokens/${ciBot.agentId}/persona`, { persona: tutorId });
    expect(set.status).toBe(303);
    const { persona } = await contextOf(ciBot.token);
    expect(persona).toMatchObject({ id: tutorId, name: 'Tutor', active: true });
    expect(persona?.soul_content).toBe('# Tutor\n\nExplain step by step & check understanding.');
    const tokens = await alice.open('/dashboard/tokens');
    expect(tokens.html).toMatch(new RegExp(`<option value="${tutorId}" selected>Tutor</option>`));
    expect((await alice.open('/dashboard/personas')).html).toMatch(
      /<strong>Tutor<\/strong>[\s\S]*?CI bot<br>/,
    );
  });

  test('chosen at handshake approval: the new agent’s context carries it', async () => {
    const asked = await fetch(`${stack.url}/api/v1/handshakes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'tutor-bot@laptop', requestedScopes: ['read'], message: 'Tutor bot' }),
    });
    expect(asked.status).toBe(201);
    const { handshakeId } = (await asked.json()) as { handshakeId: string };
    const queue = await alice.open('/dashboard/handshakes');
    expect(queue.html).toContain(`<option value="${tutorId}">Tutor</option>`);
    const approved = await post(alice, `/dashboard/handshakes/${handshakeId}/approve`, {
      scope_read: 'on',
      persona: tutorId,
    });
    expect(approved.status).toBe(201);
    expect(alertsOf(approved.html)).toEqual([]);
    const token = /id="token" aria-label="The new token">([^<]+)</.exec(approved.html)?.[1] ?? '';
    const { persona } = await contextOf(token);
    expect(persona).toMatchObject({ id: tutorId, name: 'Tutor' });
  });

  test('chosen at device approval: the device’s context carries it', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const registered = await fetch(`${stack.url}/api/v1/agentic/asc/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: publicKey.export({ format: 'jwk' }).x, deviceName: 'study lamp' }),
    });
    expect(registered.status).toBe(201);
    const device = (await registered.json()) as DeviceRegistered;
    const page = await alice.submit(await alice.open(device.claimUrl), {}, '/dashboard/devices/claim');
    expect(page.html).toContain(`<option value="${tutorId}">Tutor</option>`);
    const approved = await post(alice, `/dashboard/devices/${device.deviceId}/approve`, {
      'scope-read': 'on',
      persona: tutorId,
    });
    expect(approved.status).toBe(303);
    expect(approved.location).toBe(`/dashboard/devices/${device.deviceId}`);
    // The device's own token (RFC 7523 assertion), as the device gets it.
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: device.deviceId,
      sub: device.deviceId,
      aud: `${stack.url}/oauth/token`,
      iat: now,
      exp: now + 60,
      jti: randomUUID(),
    };
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64(claims)}`;
    const granted = await fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`,
        client_id: device.deviceId,
      }),
    });
    expect(granted.status).toBe(200);
    const { access_token: token } = (await granted.json()) as { access_token: string };
    expect((await contextOf(token)).persona).toMatchObject({ id: tutorId, name: 'Tutor' });
  });

  test('edit, make default, and deleting the default is refused plainly', async () => {
    const edit = await alice.open(`/dashboard/personas/${tutorId}`);
    expect(edit.status).toBe(200);
    expect(edit.html).toContain('value="Tutor"');
    const saved = await post(alice, `/dashboard/personas/${tutorId}`, {
      name: 'Patient tutor',
      description: '',
      soul_content: 'Be patient.',
    });
    expect(saved.status).toBe(303);
    expect((await contextOf(ciBot.token)).persona).toMatchObject({
      name: 'Patient tutor',
      soul_content: 'Be patient.',
    });

    expect((await post(alice, `/dashboard/personas/${tutorId}/default`, {})).status).toBe(303);
    const list = await alice.open('/dashboard/personas');
    expect(list.html).toContain('<strong>Patient tutor</strong> <span class="ok">default</span>');

    const confirm = await alice.open(`/dashboard/personas/${tutorId}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Delete Patient tutor');
    const refused = await post(alice, `/dashboard/personas/${tutorId}/delete`, {});
    expect(refused.status).toBe(409);
    expect(alertsOf(refused.html)).toHaveLength(1);
    expect(refused.html).toContain('<strong>Patient tutor</strong>');
  });
});

let documentId: string;

describe('knowledge', () => {
  test('typed and uploaded documents reach the agent’s knowledge base; the search marks matches', async () => {
    const added = await post(alice, '/dashboard/knowledge', {
      title: 'Espresso',
      kind: 'preferences',
      'kind-other': '',
      content: 'Alice takes her espresso with oat milk.',
    });
    expect(added.status).toBe(303);
    const form = new FormData();
    form.set('_csrf', aliceCsrf);
    form.set('kind', 'other');
    form.set('kind-other', 'travel');
    form.set(
      'file',
      new Blob([new TextEncoder().encode('\uFEFF# Trips\r\nAlways a window seat on trains.\r\n')]),
      'trips.md',
    );
    const uploaded = await alice.request('/dashboard/knowledge/upload', { method: 'POST', body: form });
    expect(uploaded.status).toBe(303);

    const response = await api(ciBot.token, '/api/v1/brain/knowledge-base');
    expect(response.status).toBe(200);
    const base = (await response.json()) as KnowledgeBase;
    const byTitle = new Map(base.documents.map((document) => [document.title, document]));
    expect(byTitle.get('Espresso')).toMatchObject({
      kind: 'preferences',
      content: 'Alice takes her espresso with oat milk.',
    });
    expect(byTitle.get('trips')).toMatchObject({
      kind: 'travel',
      content: '# Trips\nAlways a window seat on trains.\n',
    });
    documentId = byTitle.get('Espresso')?.id ?? '';

    const search = await alice.open('/dashboard/knowledge?q=espresso');
    expect(search.status).toBe(200);
    expect(search.html).toContain('<mark>espresso</mark>');
    expect(search.html).not.toContain('window seat');
  });

  test('edit and delete, with a confirm step', async () => {
    const edit = await alice.open(`/dashboard/knowledge/${documentId}`);
    expect(edit.html).toContain('value="Espresso"');
    const saved = await post(alice, `/dashboard/knowledge/${documentId}`, {
      title: 'Coffee',
      kind: 'preferences',
      content: 'Flat white.',
    });
    expect(saved.status).toBe(303);
    expect((await alice.open('/dashboard/knowledge')).html).toContain('>Coffee</a>');
    expect((await alice.open(`/dashboard/knowledge/${documentId}/delete`)).html).toContain('Delete Coffee');
    expect((await post(alice, `/dashboard/knowledge/${documentId}/delete`, {})).status).toBe(303);
    expect((await alice.open(`/dashboard/knowledge/${documentId}`)).status).toBe(404);
  });

  test('a kind that is not a label comes back with what was typed', async () => {
    const refused = await post(alice, '/dashboard/knowledge', {
      title: 'Odd',
      kind: 'other',
      'kind-other': 'Not A Label!',
      content: 'text',
    });
    expect(refused.status).toBe(400);
    expect(alertsOf(refused.html).join('\n')).toContain('kind:');
    expect(refused.html).toContain('value="Not A Label!"');
  });
});

describe('identity', () => {
  test('saved on the dashboard, carried by the context', async () => {
    const saved = await post(alice, '/dashboard/identity', {
      name: 'Alice Liddell',
      timezone: 'Europe/London',
      locale: 'en-GB',
      summary: 'Mathematician.\r\nLikes puzzles.',
    });
    expect(saved.status).toBe(303);
    const { user } = await contextOf(ciBot.token);
    expect(user).toMatchObject({
      name: 'Alice Liddell',
      timezone: 'Europe/London',
      locale: 'en-GB',
      summary: 'Mathematician.\nLikes puzzles.',
    });
    const bad = await post(alice, '/dashboard/identity', {
      name: 'Alice',
      timezone: 'Europe/London',
      locale: 'x',
    });
    expect(bad.status).toBe(400);
    expect(alertsOf(bad.html)[0]).toContain('locale');
  });
});

describe('memory', () => {
  test('each entry names the agent that wrote it; delete one, then all of one agent', async () => {
    for (const content of ['Standup moved to 9:30.', 'Prefers email over chat.', 'Dentist on Friday.']) {
      const written = await api(ciBot.token, '/api/v1/memory', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
      expect(written.status).toBe(201);
    }
    const page = await alice.open('/dashboard/memory');
    expect(page.status).toBe(200);
    const first =
      /<tr id="memory-([^"]+)">\s*<td class="pre">Dentist on Friday.<\/td>\s*<td>CI bot<\/td>/.exec(
        page.html,
      );
    expect(first).not.toBeNull();
    expect(page.html.indexOf('Dentist on Friday.')).toBeLessThan(page.html.indexOf('Standup moved to 9:30.'));

    const search = await alice.open('/dashboard/memory?q=email');
    expect(search.html).toContain('<mark>email</mark>');
    expect(search.html).not.toContain('Dentist');

    expect((await post(alice, `/dashboard/memory/${first?.[1]}/delete`, {})).status).toBe(303);
    expect((await contextOf(ciBot.token)).memory?.map((entry) => entry.content)).toEqual([
      'Prefers email over chat.',
      'Standup moved to 9:30.',
    ]);

    const confirm = await alice.open(`/dashboard/memory/clear?agent=${ciBot.agentId}`);
    expect(confirm.html).toContain('Delete every entry of CI bot');
    const cleared = await post(alice, '/dashboard/memory/clear', { agent: ciBot.agentId });
    expect(cleared.status).toBe(303);
    expect((await alice.open(cleared.location ?? '')).html).toContain('Deleted 2 entries.');
    expect(await contextOf(ciBot.token)).toMatchObject({ memory: [], memoryCount: 0 });
  });
});

describe('the owner’s language model', () => {
  test('set with a key that is never shown back, then removed', async () => {
    const before = await alice.open('/dashboard/brain');
    expect(before.status).toBe(200);
    const saved = await post(alice, '/dashboard/brain', {
      'base-url': 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      'api-key': 'sk-secret-never-shown',
    });
    expect(saved.status).toBe(303);
    const page = await alice.open('/dashboard/brain');
    expect(page.html).toContain('Your own provider answers: <code>llama3.2</code>');
    expect(page.html).toContain('with an API key');
    expect(page.html).not.toContain('sk-secret-never-shown');
    const removed = await post(alice, '/dashboard/brain/clear', {});
    expect(removed.status).toBe(303);
    const after = await alice.open('/dashboard/brain');
    expect(after.html).not.toContain('Your own provider answers');
    // This stack configures no provider: the offline brain answers, and the page says so.
    expect(after.html).toContain('No language model is configured');
  });
});

describe('another owner', () => {
  let bob: Browser;
  let bobCsrf: string;
  let aliceEntry: string;
  let aliceDocument: string;

  beforeAll(async () => {
    const written = await api(ciBot.token, '/api/v1/memory', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Alice’s secret note.' }),
    });
    aliceEntry = ((await written.json()) as { id: string }).id;
    await post(alice, '/dashboard/knowledge', { title: 'Alice only', kind: 'other', content: 'Private.' });
    const base = (await (await api(ciBot.token, '/api/v1/brain/knowledge-base')).json()) as KnowledgeBase;
    aliceDocument = base.documents.find((document) => document.title === 'Alice only')?.id ?? '';
    bob = new Browser(stack.url);
    bobCsrf = csrfOf((await signUp(bob, BOB)).html);
  }, 30_000);

  test('sees none of Alice’s items', async () => {
    expect((await bob.open('/dashboard/personas')).html).not.toContain('Patient tutor');
    expect((await bob.open('/dashboard/knowledge')).html).not.toContain('Alice only');
    expect((await bob.open('/dashboard/memory')).html).not.toContain('secret note');
    expect((await bob.open('/dashboard/identity')).html).not.toContain('Liddell');
  });

  test('reaches none of them by id', async () => {
    expect((await bob.open(`/dashboard/personas/${tutorId}`)).status).toBe(404);
    expect((await bob.open(`/dashboard/knowledge/${aliceDocument}`)).status).toBe(404);
    const attempts = [
      [`/dashboard/personas/${tutorId}`, { name: 'Hijacked', soul_content: 'x' }],
      [`/dashboard/personas/${tutorId}/default`, {}],
      [`/dashboard/personas/${tutorId}/delete`, {}],
      [`/dashboard/knowledge/${aliceDocument}`, { title: 'Hijacked', kind: 'other', content: 'x' }],
      [`/dashboard/knowledge/${aliceDocument}/delete`, {}],
      [`/dashboard/memory/${aliceEntry}/delete`, {}],
      [`/dashboard/tokens/${ciBot.agentId}/persona`, { persona: '' }],
    ] as const;
    for (const [path, fields] of attempts) {
      const answer = await post(bob, path, fields, bobCsrf);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    const cleared = await post(bob, '/dashboard/memory/clear', { agent: ciBot.agentId }, bobCsrf);
    expect(cleared.location).toContain('cleared=0');
    expect((await contextOf(ciBot.token)).memory?.map((entry) => entry.id)).toContain(aliceEntry);
    expect((await contextOf(ciBot.token)).persona?.name).toBe('Patient tutor');
    const base = (await (await api(ciBot.token, '/api/v1/brain/knowledge-base')).json()) as KnowledgeBase;
    expect(base.documents.find((document) => document.id === aliceDocument)?.title).toBe('Alice only');
  });
});

describe('the audit log', () => {
  test('every change is an owner action, without its content', async () => {
    const actions = [
      'persona.create',
      'persona.assign',
      'knowledge.upload',
      'identity.set',
      'memory.clear',
      'provider.set',
    ];
    // The events travel through auth's outbox and the audit stream: the page shows them once stored.
    const page = await eventually(
      async () => {
        const shown = await alice.open('/dashboard/audit');
        return actions.every((action) => shown.html.includes(`<code>${action}</code>`)) && shown;
      },
      { what: `${actions.join(', ')} in the audit log`, timeoutMs: 20_000 },
    );
    expect(page.html).not.toContain('sk-secret-never-shown');
    expect(page.html).not.toContain('oat milk');
  });
});
