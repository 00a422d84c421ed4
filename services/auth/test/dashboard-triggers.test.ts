/**
 * /dashboard/triggers in the auth service, against the trigger service's owner endpoints as the
 * contracts define them (support/owner-triggers.ts on the test's bus; the real trigger service:
 * test/trigger-dashboard.test.ts): the signed-in owner sees each of their triggers with the
 * creating agent's name from auth's records ("deleted agent" when gone), runs one now, pauses,
 * resumes, turns the memory toggle, deletes after a confirm step, every form with the CSRF token
 * and without JavaScript; every message names the signed-in owner's account, so another owner's
 * trigger is a 404 and stays as it was; a refusal of the trigger service is shown on the list;
 * no trigger service answering is a 503 page.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AppError, TriggerOwnerEndpoints } from '@pag/contracts';
import { Browser, csrfOf, signUp } from '@pag/testkit';
import type { OwnerTriggers } from './support/owner-triggers.ts';
import { serveOwnerTriggers } from './support/owner-triggers.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const ALICE = { email: 'alice@triggers.test', password: 'correct horse battery staple' };
const BOB = { email: 'bob@triggers.test', password: 'another horse battery staple' };
const UNAVAILABLE = 'Your triggers are unavailable right now: the trigger service did not answer.';

let t: TestAuth;
let service: OwnerTriggers;
let alice: Browser;
let aliceCsrf: string;
let aliceId: string;
let bobId: string;
let agentId: string;
beforeAll(async () => {
  t = await startTestAuth();
  service = await serveOwnerTriggers(t.bus);
  alice = new Browser(t.url);
  aliceCsrf = csrfOf((await signUp(alice, ALICE)).html);
  await signUp(new Browser(t.url), BOB);
  const idOf = async (email: string) => (await t.db.account.findUniqueOrThrow({ where: { email } })).id;
  [aliceId, bobId] = [await idOf(ALICE.email), await idOf(BOB.email)];
  const agent = await t.auth.core.agents.createAgent({
    accountId: aliceId,
    kind: 'dashboard',
    name: 'Digest <bot>',
    scopes: ['chat', 'services:github:read'],
  });
  agentId = agent.id;
  service.add(aliceId, { id: 'trg_alice1', name: 'Morning digest', createdBy: agentId });
  service.add(aliceId, { id: 'trg_alice2', name: 'Orphan', createdBy: 'ag_deleted' });
  service.add(bobId, { id: 'trg_bob1', name: 'Bob secret plan', createdBy: 'ag_bobs' });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await t?.close();
});

const decoded = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'");
const alertOf = (html: string) => decoded(/role="alert">([^<]*)</.exec(html)?.[1] ?? '');
const statusOf = (html: string) => decoded(/role="status">([^<]*)</.exec(html)?.[1] ?? '');
/** The section of one trigger on the list. */
const sectionOf = (html: string, id: string) =>
  new RegExp(`<section id="trigger-${id}">[\\s\\S]*?</section>`).exec(html)?.[0] ?? '';

describe('the list', () => {
  test('every trigger of the owner with its creator, and none of another owner', async () => {
    const page = await alice.open('/dashboard/triggers');
    expect(page.status).toBe(200);
    expect(sectionOf(page.html, 'trg_alice1')).toContain('<dt>Created by</dt><dd>Digest &lt;bot&gt;</dd>');
    expect(sectionOf(page.html, 'trg_alice2')).toContain('<dt>Created by</dt><dd>deleted agent</dd>');
    expect(page.html).not.toContain('Bob secret plan');
    expect(service.asked.at(-1)).toEqual({
      subject: TriggerOwnerEndpoints.list.subject,
      accountId: aliceId,
      id: null,
    });
  });

  test('the dashboard navigation links it', async () => {
    const tokens = await alice.open('/dashboard/tokens');
    expect(tokens.html).toContain('<a href="/dashboard/triggers">Triggers</a>');
  });

  test('signed out: to the sign-in page, back here afterwards', async () => {
    const response = await new Browser(t.url).get('/dashboard/triggers');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2Fdashboard%2Ftriggers');
  });
});

describe('the owner acts on a trigger, with forms only', () => {
  test('pause, then resume', async () => {
    const paused = await alice.submit(await alice.open('/dashboard/triggers'), {}, '/trg_alice1/pause');
    expect(paused.status).toBe(200);
    expect(statusOf(paused.html)).toBe('Paused “Morning digest”.');
    expect(sectionOf(paused.html, 'trg_alice1')).toContain('<strong>paused</strong>');
    expect(service.get(aliceId, 'trg_alice1')?.status).toBe('paused');
    const resumed = await alice.submit(paused, {}, '/trg_alice1/resume');
    expect(statusOf(resumed.html)).toBe('Resumed “Morning digest”.');
    expect(service.get(aliceId, 'trg_alice1')?.status).toBe('active');
  });

  test('run now: the queued run shows under the trigger', async () => {
    const page = await alice.submit(await alice.open('/dashboard/triggers'), {}, '/trg_alice1/run');
    expect(statusOf(page.html)).toContain('“Morning digest” is running now');
    expect(sectionOf(page.html, 'trg_alice1')).toMatch(
      /<tr id="run-run_\d+">\s*<td>queued<\/td>\s*<td>manual<\/td>/,
    );
  });

  test('the memory toggle turns saving outputs on and off', async () => {
    const on = await alice.submit(await alice.open('/dashboard/triggers'), {}, '/trg_alice1/memory');
    expect(statusOf(on.html)).toBe('Outputs of “Morning digest” are now also saved to memory.');
    expect(service.get(aliceId, 'trg_alice1')?.action.saveOutputToMemory).toBe(true);
    const off = await alice.submit(on, {}, '/trg_alice1/memory');
    expect(statusOf(off.html)).toBe('Outputs of “Morning digest” are no longer saved to memory.');
    expect(service.get(aliceId, 'trg_alice1')?.action.saveOutputToMemory).toBe(false);
  });

  test('a memory toggle that is neither true nor false is a 400 naming the field', async () => {
    const response = await alice.post('/dashboard/triggers/trg_alice1/memory', {
      _csrf: aliceCsrf,
      enabled: 'yes',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('enabled: Must be true or false.');
  });

  test('delete asks to confirm first; keeping it changes nothing', async () => {
    const confirm = await alice.open('/dashboard/triggers/trg_alice2/delete');
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Delete trigger Orphan?');
    expect(service.get(aliceId, 'trg_alice2')).toBeDefined();
    const deleted = await alice.submit(confirm, {}, '/trg_alice2/delete');
    expect(statusOf(deleted.html)).toBe('The trigger was deleted.');
    expect(service.get(aliceId, 'trg_alice2')).toBeUndefined();
    expect(deleted.html).not.toContain('Orphan');
  });

  test('a refusal of the trigger service is shown on the list with its status', async () => {
    service.refuseNext(
      'trg_alice1',
      new AppError('CONFLICT', 'Its creator Digest bot is still revoked: it cannot run again.'),
    );
    const page = await alice.submit(await alice.open('/dashboard/triggers'), {}, '/trg_alice1/pause');
    expect(page.status).toBe(409);
    expect(alertOf(page.html)).toBe('Its creator Digest bot is still revoked: it cannot run again.');
    expect(sectionOf(page.html, 'trg_alice1')).toContain('Morning digest');
  });
});

describe("another owner's trigger", () => {
  test.each(['pause', 'resume', 'run', 'delete'])(
    '%s of it is a 404, and it stays as it was',
    async (verb) => {
      const response = await alice.post(`/dashboard/triggers/trg_bob1/${verb}`, { _csrf: aliceCsrf });
      expect(response.status).toBe(404);
      expect(service.asked.at(-1)).toMatchObject({ accountId: aliceId, id: 'trg_bob1' });
      expect(service.get(bobId, 'trg_bob1')).toMatchObject({ status: 'active', name: 'Bob secret plan' });
    },
  );

  test('its memory toggle and delete confirmation are 404 too', async () => {
    const toggle = await alice.post('/dashboard/triggers/trg_bob1/memory', {
      _csrf: aliceCsrf,
      enabled: 'true',
    });
    expect(toggle.status).toBe(404);
    expect(service.get(bobId, 'trg_bob1')?.action.saveOutputToMemory).toBe(false);
    const confirm = await alice.open('/dashboard/triggers/trg_bob1/delete');
    expect(confirm.status).toBe(404);
    expect(confirm.html).not.toContain('Bob secret plan');
  });
});

describe('forged posts', () => {
  test.each(['pause', 'resume', 'run', 'delete', 'memory'])(
    '/dashboard/triggers/:id/%s without a valid CSRF token is a 403, and the service is not asked',
    async (verb) => {
      const before = service.asked.length;
      const response = await alice.post(`/dashboard/triggers/trg_alice1/${verb}`, {
        _csrf: 'forged',
        enabled: 'true',
      });
      expect(response.status).toBe(403);
      expect(service.asked.length).toBe(before);
    },
  );

  test('from another site: refused before the form is read', async () => {
    const response = await alice.request('/dashboard/triggers/trg_alice1/pause', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ _csrf: aliceCsrf }).toString(),
    });
    expect(response.status).toBe(403);
  });
});

describe('no trigger service answering', () => {
  beforeAll(async () => {
    await service.close();
  });

  test('the list is a 503 page that says so, in the dashboard frame', async () => {
    const page = await alice.open('/dashboard/triggers');
    expect(page.status).toBe(503);
    expect(alertOf(page.html)).toContain(UNAVAILABLE);
    expect(page.html).toContain('<nav aria-label="Dashboard">');
  });

  test('a change posted meanwhile is a 503 page that says so', async () => {
    const response = await alice.post('/dashboard/triggers/trg_alice1/pause', { _csrf: aliceCsrf });
    expect(response.status).toBe(503);
    expect(alertOf(await response.text())).toContain(UNAVAILABLE);
  });
});
