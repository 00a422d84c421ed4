/**
 * /dashboard/triggers in a real browser with JavaScript switched off (Debian's chromium driven by
 * playwright-core, docs/adr/0014), against the stack as a user starts it: the owner reaches the
 * page from the dashboard's navigation, opens a long prompt cut on the list (a details element,
 * no script), pauses and resumes the trigger and deletes it through its confirm step, each with
 * the page's own buttons, and the browser reports no error (the page's CSP refuses nothing it
 * uses). Needs the trigger service in the stack (issue 13, branch i13-api).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { openWatchedPage } from './support/watched-page.ts';

/** Where Debian's `chromium` package puts its launcher. */
const CHROMIUM = '/usr/bin/chromium';
const OWNER = { email: 'browser-triggers@example.test', password: 'a browser-made password' };
/** Longer than the list shows (SHOWN_CHARS, 300): the rest is behind "Show all of the prompt". */
const PROMPT = `Summarise the week. ${'Then list what is still open. '.repeat(12)}The end of the prompt.`;

let stack: StackProcess | undefined;
let browser: Browser | undefined;
let agentToken = '';
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No chromium at ${CHROMIUM}. Install Debian's chromium with \`scripts/setup.sh --test\` (what CI runs).`,
    );
  // --no-sandbox: CI runs as root, where chromium refuses to start with its sandbox.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  stack = await startStackProcess();
  const running = stack;
  const pag = pagCommand(() => running.dataDir);
  const owner = await pag(
    'owner',
    'create',
    '--email',
    OWNER.email,
    '--password',
    OWNER.password,
    '--plan',
    'pro',
  );
  expect(owner.code).toBe(0);
  const token = await pag('token', 'create', '--owner', OWNER.email, '--name', 'Planner', '--scopes', 'chat');
  expect(token.code).toBe(0);
  agentToken = token.out.at(-1) ?? '';
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test('the owner finds, reads, pauses, resumes and deletes a trigger without JavaScript', async () => {
  if (browser === undefined || stack === undefined) throw new Error('not started');
  const created = await fetch(`${stack.url}/api/v1/triggers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Week review',
      kind: 'schedule',
      schedule: { type: 'weekly', weekday: 'friday', atHour: 17, atMinute: 0 },
      timezone: 'Europe/Berlin',
      actionType: 'ai_prompt',
      action: { prompt: PROMPT, services: [] },
    }),
  });
  expect(created.status).toBe(201);

  const { context, page, problems } = await openWatchedPage(browser, stack.url, false);
  try {
    await page.goto('/login');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/tokens');
    await page.getByRole('link', { name: 'Triggers' }).click();
    await page.waitForURL('**/dashboard/triggers');

    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Week review' }) });
    await expect(section.getByText('every Friday at 17:00 (Europe/Berlin)').isVisible()).resolves.toBe(true);
    await expect(section.getByText('Planner', { exact: true }).isVisible()).resolves.toBe(true);
    const whole = section.locator('details').getByText('The end of the prompt.', { exact: false });
    await expect(whole.isVisible()).resolves.toBe(false);
    await section.getByText('Show all of the prompt').click();
    await expect(whole.isVisible()).resolves.toBe(true);

    await section.getByRole('button', { name: 'Pause: Week review' }).click();
    await page.waitForURL('**/dashboard/triggers?done=pause*');
    await expect(page.getByRole('status').textContent()).resolves.toBe('Paused “Week review”.');
    await section.getByRole('button', { name: 'Resume: Week review' }).click();
    await page.waitForURL('**/dashboard/triggers?done=resume*');
    await expect(page.getByRole('status').textContent()).resolves.toBe('Resumed “Week review”.');

    await section.getByRole('link', { name: 'Delete Week review' }).click();
    await page.waitForURL('**/delete');
    await page.getByRole('button', { name: 'Delete Week review' }).click();
    await page.waitForURL('**/dashboard/triggers?done=delete*');
    await expect(page.getByRole('status').textContent()).resolves.toBe('The trigger was deleted.');
    await expect(page.getByRole('heading', { name: 'Week review' }).count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
