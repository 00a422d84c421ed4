/**
 * The owner's token story in a real browser (Debian's chromium driven by playwright-core, with
 * JavaScript switched off: the dashboard must work without it), against the stack as a user
 * starts it: sign up, create a token on /dashboard/tokens, call the API with it, revoke it on
 * the dashboard, and see the API refuse it. See docs/adr/0014-browser-tests-with-debian-chromium.md.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

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
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL: stack.url });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
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
    await page.waitForLoadState();
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
