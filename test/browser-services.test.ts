/**
 * /dashboard/services in a real browser with JavaScript switched off (Debian's chromium driven by
 * playwright-core, docs/adr/0014), against the stack as a user starts it, with a stand-in
 * provider on loopback (a second oidc-provider, configured as the deployment's own connector):
 * the owner reaches the page from the navigation, presses Connect, signs in and consents at the
 * provider, comes back connected, and disconnects. The browser reports no error: in particular
 * its CSP lets the Connect form's redirect go to the provider (form-action), which only a browser
 * checks.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { StandInProvider } from '../services/proxy/test/support/stand-in-provider.ts';
import { openWatchedPage } from './support/watched-page.ts';

/** Where Debian's `chromium` package puts its launcher. */
const CHROMIUM = '/usr/bin/chromium';
const OWNER = { email: 'browser-services@example.test', password: 'a browser-made password' };

let provider: StandInProvider | undefined;
let stack: StackProcess | undefined;
let browser: Browser | undefined;
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No chromium at ${CHROMIUM}. Install Debian's chromium with \`scripts/setup.sh --test\` (what CI runs).`,
    );
  // --no-sandbox: CI runs as root, where chromium refuses to start with its sandbox.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  provider = await StandInProvider.start();
  stack = await startStackProcess({
    env: { CONNECTOR_CUSTOM: JSON.stringify([provider.connector]), CONNECTOR_ALLOW_LOOPBACK: 'true' },
  });
  provider.withRedirectUri(`${stack.url}/dashboard/services/callback`);
  const running = stack;
  const pag = pagCommand(() => running.dataDir);
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await provider?.[Symbol.asyncDispose]();
});

test('the owner connects a service at its provider and disconnects it, without JavaScript', async () => {
  if (browser === undefined || stack === undefined || provider === undefined) throw new Error('not started');
  const { context, page } = await openWatchedPage(browser, stack.url, false);
  // The stand-in's own pages (oidc-provider's development login) ask for web fonts and a favicon
  // it does not serve: only errors of our pages, and any refusal by a CSP, count.
  const problems: string[] = [];
  page.on('console', (message) => {
    const at = message.location().url;
    const ours = at.startsWith(stack?.url ?? '-');
    if (message.type() === 'error' && (ours || /Content Security Policy/i.test(message.text())))
      problems.push(`${at}: ${message.text()}`);
  });
  try {
    await page.goto('/login');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/tokens');
    await page.getByRole('link', { name: 'Services' }).click();
    await page.waitForURL('**/dashboard/services');

    await page.getByRole('button', { name: 'Connect Stand-in' }).click();
    await page.waitForURL(`${provider.url}/interaction/**`);
    await page.locator('input[name="login"]').fill('owner-at-provider');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/dashboard/services?done=connected*');
    await expect(page.getByRole('status').textContent()).resolves.toBe('Stand-in is connected.');
    await expect(page.locator('td[data-connection="healthy"]').textContent()).resolves.toBe('Connected');

    await page.getByRole('button', { name: 'Disconnect Stand-in' }).click();
    await page.waitForURL('**/dashboard/services?done=revoked*');
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Stand-in is disconnected, and its access was revoked at the service.',
    );
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
