/**
 * The owner's token story in a real browser (Debian's chromium driven by playwright-core, with
 * JavaScript switched off: the dashboard must work without it), against the stack as a user
 * starts it: sign up, create a token on /dashboard/tokens, call the API with it, revoke it on
 * the dashboard, and see the API refuse it. Then, with JavaScript on, an OAuth authorization with
 * response_mode=form_post: the auto-submitting page runs under its CSP and posts the code to the
 * client. Last, the brain's pages: a persona and a knowledge document written on the dashboard
 * reach an agent's context and knowledge base. See docs/adr/0014-browser-tests-with-debian-chromium.md.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { Browser as HttpBrowser, signUp, startStackProcess } from '@pag/testkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { openWatchedPage } from './support/watched-page.ts';

/** Where Debian's `chromium` package puts its launcher. */
const CHROMIUM = '/usr/bin/chromium';
const OWNER = { email: 'browser@example.test', password: 'a browser-made password' };

let stack: StackProcess | undefined;
let browser: Browser | undefined;
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No chromium at ${CHROMIUM}. Install Debian's chromium with \`scripts/setup.sh --test\` (what CI runs).`,
    );
  // --no-sandbox: CI runs as root, where chromium refuses to start with its sandbox.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  stack = await startStackProcess();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

function capabilities(token: string): Promise<Response> {
  return fetch(`${stack?.url}/api/v1/tokens/me/capabilities`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

test('sign up, create a token, use it, revoke it, and the API refuses it', async () => {
  if (browser === undefined || stack === undefined) throw new Error('not started');
  const { context, page, problems } = await openWatchedPage(browser, stack.url, false);
  try {
    await page.goto('/signup');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Repeat the password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/dashboard/tokens');
    await expect(page.getByText(OWNER.email).count()).resolves.toBeGreaterThan(0);

    await page.getByLabel('Name', { exact: true }).fill('Browser bot');
    await page.getByLabel('read', { exact: true }).check();
    await page.getByLabel('chat', { exact: true }).check();
    await page.getByLabel('Requests per day').fill('100');
    const [created] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create token' }).click(),
    ]);
    expect(created.status()).toBe(201);
    const token = (await page.locator('#new-token').textContent()) ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(page.url()).not.toContain(token);

    const allowed = await capabilities(token);
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { scopes: string[] }).scopes.sort()).toEqual(['chat', 'read']);

    await page.getByRole('button', { name: 'Revoke Browser bot' }).click();
    await page.waitForURL('**/dashboard/tokens?revoked=*');
    expect(await page.getByText('Revoked “Browser bot”: its tokens no longer work.').isVisible()).toBe(true);
    expect((await capabilities(token)).status).toBe(401);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);

test('response_mode=form_post: the page runs its script under its CSP and posts the code', async () => {
  if (browser === undefined || stack === undefined) throw new Error('not started');
  const owner = { email: 'form-post@example.test', password: 'a form post password' };
  await signUp(new HttpBrowser(stack.url), owner);
  // The client: a loopback server that receives the form's POST.
  const received: string[] = [];
  const client = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.end('received');
    });
  });
  client.listen(0, '127.0.0.1');
  await once(client, 'listening');
  const redirectUri = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`;
  const { context, page, problems } = await openWatchedPage(browser, stack.url, true);
  try {
    const registered = await fetch(`${stack.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Form post app', redirect_uris: [redirectUri] }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      response_mode: 'form_post',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'read',
      state: 'form-post',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${stack.url}/api/v1`,
    });
    await page.goto(`/oauth/authorize?${query}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(redirectUri);
    expect(await page.textContent('body')).toBe('received');
    // The browser may also ask the client for /favicon.ico.
    const posts = received.filter((line) => line.startsWith('POST '));
    expect(posts).toHaveLength(1);
    const [line = ''] = posts;
    expect(line).toMatch(/^POST \/callback /);
    const form = new URLSearchParams(line.split(' ')[2]);
    expect(form.get('code')).toEqual(expect.any(String));
    expect(form.get('state')).toBe('form-post');
    expect(problems).toEqual([]);
  } finally {
    await context.close();
    client.close();
  }
}, 60_000);

test('the owner writes a persona and a knowledge document on the dashboard, and the agent sees both', async () => {
  if (browser === undefined || stack === undefined) throw new Error('not started');
  const owner = { email: 'brain-browser@example.test', password: 'a brain-filling password' };
  const { context, page, problems } = await openWatchedPage(browser, stack.url, false);
  try {
    await page.goto('/signup');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(owner.password);
    await page.getByLabel('Repeat the password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/dashboard/tokens');
    await page.getByLabel('Name', { exact: true }).fill('Reader');
    await page.getByLabel('knowledge', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('#new-token').textContent()) ?? '';

    await page.getByRole('link', { name: 'Personas' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Butler');
    await page
      .getByLabel('Instructions (soul_content, markdown)')
      .fill('# Butler\n\nFormal, brief, discreet.');
    await page.getByLabel(/Make it the default/).check();
    await page.getByRole('button', { name: 'Create persona' }).click();
    await page.waitForURL('**/dashboard/personas?saved=*');
    expect(await page.getByText('Saved “Butler”.').isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.locator('#title').fill('Wine cellar');
    await page.locator('#kind').selectOption('preferences');
    await page.getByLabel('Content (markdown)').fill('Serve the 2015 Rioja with lamb.');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.waitForURL('**/dashboard/knowledge?saved=1');
    await page.getByLabel('Search').fill('rioja');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.locator('mark').first().textContent()).toBe('Rioja');

    const agentContext = await fetch(`${stack.url}/api/v1/gateway/context`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(agentContext.status).toBe(200);
    const { persona } = (await agentContext.json()) as { persona: { name: string; soul_content: string } };
    expect(persona).toMatchObject({ name: 'Butler', soul_content: '# Butler\n\nFormal, brief, discreet.' });
    const knowledge = await fetch(`${stack.url}/api/v1/brain/knowledge-base`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(knowledge.status).toBe(200);
    const { documents } = (await knowledge.json()) as {
      documents: { title: string; kind: string; content: string }[];
    };
    expect(documents).toEqual([
      expect.objectContaining({
        title: 'Wine cellar',
        kind: 'preferences',
        content: 'Serve the 2015 Rioja with lamb.',
      }),
    ]);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
