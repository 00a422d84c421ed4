/**
 * A page of a fresh browser context on the stack, recording every console error: the browser
 * tests end by expecting none (a page that breaks in the browser fails the test).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors seen so far. */
  problems: string[];
}

export async function openWatchedPage(
  browser: Browser,
  baseURL: string,
  javaScriptEnabled: boolean,
): Promise<WatchedPage> {
  const context = await browser.newContext({ javaScriptEnabled, baseURL });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return { context, page, problems };
}
