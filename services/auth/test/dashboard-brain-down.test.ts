/**
 * The brain's dashboard pages while no brain answers (the auth service alone on its bus): every
 * page says plainly that the brain is unavailable (503), a form posted meanwhile comes back with
 * what the owner typed, the owner's mistakes are named before the brain is asked, forged posts are
 * refused, and an approval that chose a persona stands, saying the persona was not set.
 * (With a real brain: test/dashboard-brain.test.ts.)
 */

import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered, HandshakeCreated } from '@pag/contracts';
import { AuthSubjects, KNOWLEDGE_MAX_BYTES, MessageHeaders } from '@pag/contracts';
import { Browser, csrfOf, signUp } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const OWNER = { email: 'brainless@example.test', password: 'correct horse battery staple' };
const UNAVAILABLE = 'Your brain is unavailable right now: the brain service did not answer.';

let t: TestAuth;
let browser: Browser;
let csrf: string;

beforeAll(async () => {
  t = await startTestAuth();
  browser = new Browser(t.url);
  csrf = csrfOf((await signUp(browser, OWNER)).html);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const decoded = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'");
const alertOf = (html: string) => alertsOf(html)[0];
/** Every alert of a page (a refused upload beside an unavailable list shows both). */
const alertsOf = (html: string) =>
  [...html.matchAll(/role="alert">([^<]*)</g)].map((match) => decoded(match[1] ?? ''));

describe('no brain answering', () => {
  test.each([
    '/dashboard/personas',
    '/dashboard/knowledge',
    '/dashboard/identity',
    '/dashboard/memory',
    '/dashboard/brain',
  ])('%s is a 503 page that says so', async (path) => {
    const page = await browser.open(path);
    expect(page.status).toBe(503);
    expect(alertOf(page.html)).toContain(UNAVAILABLE);
    expect(page.html).toContain('<nav aria-label="Dashboard">');
  });

  test('a persona posted meanwhile comes back as typed', async () => {
    const soul = '# Tutor\n\nBe patient & <kind>.';
    const page = await browser.submit(
      await browser.open('/dashboard/personas'),
      { name: 'Tutor', soul_content: soul },
      '/dashboard/personas',
    );
    expect(page.status).toBe(503);
    expect(page.html).toContain('value="Tutor"');
    expect(page.html).toContain('\n# Tutor\n\nBe patient &amp; &lt;kind&gt;.</textarea>');
  });

  test('a document posted meanwhile comes back as typed, its own kind too', async () => {
    const response = await browser.post('/dashboard/knowledge', {
      _csrf: csrf,
      title: 'Travel',
      kind: 'other',
      'kind-other': 'trips',
      content: 'Window seat.\r\nNo red-eyes.',
    });
    const html = await response.text();
    expect(response.status).toBe(503);
    expect(alertOf(html)).toContain(UNAVAILABLE);
    expect(html).toContain('value="Travel"');
    expect(html).toContain('value="trips"');
    expect(html).toContain('\nWindow seat.\nNo red-eyes.</textarea>');
  });

  test('a time zone or locale that means nothing is named before the brain is asked', async () => {
    const response = await browser.post('/dashboard/identity', {
      _csrf: csrf,
      name: 'Ada',
      timezone: 'Mars/Olympus',
      locale: 'en-GB',
      summary: '',
    });
    const html = await response.text();
    expect(response.status).toBe(400);
    expect(alertOf(html)).toContain('timezone: Must be an IANA time-zone name');
    expect(html).toContain('value="Mars/Olympus"');
    const valid = await browser.post('/dashboard/identity', {
      _csrf: csrf,
      name: 'Ada',
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      summary: 'Writes compilers.',
    });
    const shown = await valid.text();
    expect(valid.status).toBe(503);
    expect(shown).toContain('value="Europe/Berlin"');
    expect(shown).toContain('Writes compilers.</textarea>');
  });

  test('the provider form never shows the key back', async () => {
    const response = await browser.post('/dashboard/brain', {
      _csrf: csrf,
      'base-url': 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      'api-key': 'sk-never-shown-1234',
    });
    const html = await response.text();
    expect(response.status).toBe(503);
    expect(html).toContain('value="llama3.2"');
    expect(html).not.toContain('sk-never-shown-1234');
  });
});

describe('uploads', () => {
  async function upload(
    file: { name: string; bytes: Uint8Array } | null,
    fields: Record<string, string> = {},
  ) {
    const form = new FormData();
    for (const [name, value] of Object.entries({ _csrf: csrf, kind: 'other', ...fields }))
      form.set(name, value);
    if (file) form.set('file', new Blob([file.bytes]), file.name);
    const response = await browser.request('/dashboard/knowledge/upload', { method: 'POST', body: form });
    return { status: response.status, html: await response.text() };
  }
  const utf8 = (text: string) => new TextEncoder().encode(text);

  test('only .md and .txt files', async () => {
    const { status, html } = await upload(
      { name: 'notes.pdf', bytes: utf8('%PDF-1.7') },
      { title: 'Kept title' },
    );
    expect(status).toBe(415);
    expect(alertsOf(html)).toContain(
      '“notes.pdf” is not a markdown or text file: upload a .md or .txt file.',
    );
    expect(html).toContain('value="Kept title"');
  });

  test('UTF-8 only', async () => {
    const latin1 = Uint8Array.from([0x43, 0x61, 0x66, 0xe9]); // "Café" in ISO-8859-1
    const { status, html } = await upload({ name: 'cafe.txt', bytes: latin1 });
    expect(status).toBe(415);
    expect(alertsOf(html)).toContain('“cafe.txt” is not UTF-8 text. Save it as UTF-8 and upload it again.');
  });

  test(`at most ${KNOWLEDGE_MAX_BYTES / 1024} KiB, the typed fields kept`, async () => {
    const big = new Uint8Array(KNOWLEDGE_MAX_BYTES + 1).fill(0x61);
    const { status, html } = await upload(
      { name: 'big.md', bytes: big },
      { title: 'Big one', 'kind-other': 'logs' },
    );
    expect(status).toBe(413);
    expect(alertsOf(html).join('\n')).toContain('a document may have at most 256 KiB');
    expect(html).toContain('value="Big one"');
    expect(html).toContain('value="logs"');
  });

  test('a valid file reaches the brain (unavailable here), the title typed kept', async () => {
    const { status, html } = await upload({ name: 'about-me.md', bytes: utf8('# Me\n') }, { title: 'About' });
    expect(status).toBe(503);
    expect(alertOf(html)).toContain(UNAVAILABLE);
    expect(html).toContain('value="About"');
  });

  test('without the CSRF token: refused', async () => {
    const form = new FormData();
    form.set('kind', 'other');
    form.set('file', new Blob([utf8('# x')]), 'x.md');
    const response = await browser.request('/dashboard/knowledge/upload', { method: 'POST', body: form });
    expect(response.status).toBe(403);
  });
});

describe('forged posts', () => {
  test.each([
    ['/dashboard/personas', { name: 'x', soul_content: 'y' }],
    ['/dashboard/knowledge', { title: 'x', kind: 'other', content: 'y' }],
    ['/dashboard/identity', { name: 'x' }],
    ['/dashboard/memory/clear', { agent: 'none' }],
    ['/dashboard/brain', { 'base-url': 'http://127.0.0.1:1/v1', model: 'm' }],
    ['/dashboard/brain/clear', {}],
  ])('%s without a valid CSRF token is a 403', async (path, fields) => {
    const response = await browser.post(path, { ...fields, _csrf: 'forged' });
    expect(response.status).toBe(403);
  });

  test('from another site: refused before the form is read', async () => {
    const response = await browser.request('/dashboard/personas', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ _csrf: csrf, name: 'x', soul_content: 'y' }).toString(),
    });
    expect(response.status).toBe(403);
  });
});

describe('approvals without a brain', () => {
  test('the tokens page says personas are unavailable and still lists the agents', async () => {
    const created = await browser.post('/dashboard/tokens', {
      _csrf: csrf,
      name: 'CI bot',
      'scope-read': 'on',
    });
    expect(created.status).toBe(201);
    const page = await browser.open('/dashboard/tokens');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Personas unavailable: the brain did not answer.');
    expect(page.html).toContain('CI bot');
  });

  test('a handshake approved with a persona chosen stands, and the page says the persona was not set', async () => {
    const handshake = await t.bus.request<HandshakeCreated>(
      AuthSubjects.handshakeCreate,
      {
        params: {},
        query: {},
        body: { agentId: 'planner@host', requestedScopes: ['read'], message: 'Planner' },
      },
      { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: '192.0.2.77' } },
    );
    const queue = await browser.open('/dashboard/handshakes');
    expect(queue.html).toContain('Personas are unavailable right now');
    const response = await browser.post(`/dashboard/handshakes/${handshake.handshakeId}/approve`, {
      _csrf: csrf,
      scope_read: 'on',
      persona: 'persona_chosen',
    });
    const html = await response.text();
    expect(response.status).toBe(201);
    expect(html).toContain('id="token"');
    expect(alertOf(html)).toContain('Its persona was not set: Your brain is unavailable right now');
  });

  test('a device approved with a persona chosen stands, and its page says the persona was not set', async () => {
    const device = await t.bus.request<DeviceRegistered>(
      AuthSubjects.deviceRegister,
      {
        params: {},
        query: {},
        body: {
          publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x,
          deviceName: 'lamp',
        },
      },
      { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: '192.0.2.78' } },
    );
    const claimed = await browser.submit(await browser.open(device.claimUrl), {}, '/dashboard/devices/claim');
    expect(claimed.html).toContain('Personas are unavailable right now');
    const approved = await browser.post(`/dashboard/devices/${device.deviceId}/approve`, {
      _csrf: csrf,
      'scope-read': 'on',
      persona: 'persona_chosen',
    });
    expect(approved.status).toBe(303);
    const page = await browser.open(approved.headers.get('location') ?? '');
    expect(page.html).toMatch(/<dd>approved<\/dd>/);
    expect(alertOf(page.html)).toContain('The device was approved, but its persona was not set');
  });
});
