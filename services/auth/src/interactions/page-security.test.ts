/**
 * The page guard on a bare koa app: every answer carries the security headers, an expected error
 * shows its message, and an unexpected one shows a generic page with nothing of its internals.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { createLogger } from '@pag/kit';
import Koa from 'koa';
import { pageGuard } from './page-security.ts';

const server = createServer();
let base = '';

beforeAll(async () => {
  const app = new Koa();
  app.use(pageGuard(createLogger({ service: 'auth-test', level: 'silent' })));
  app.use((ctx) => {
    if (ctx.path === '/boom') throw new Error('database password is hunter2 at /srv/app/store.ts:12:3');
    if (ctx.path === '/conflict') throw new AppError('CONFLICT', 'That email is taken.');
    ctx.redirect('/elsewhere');
    throw new AppError('INTERNAL_ERROR', 'secret internal detail');
  });
  server.on('request', app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('pageGuard', () => {
  test('an unexpected error is a generic 500 page with the security headers and no internals', async () => {
    const response = await fetch(`${base}/boom`);
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    );
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(text).toContain('Something went wrong on our side.');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('store.ts');
  });

  test('an exposed AppError shows its message with its status', async () => {
    const response = await fetch(`${base}/conflict`);
    expect(response.status).toBe(409);
    expect(await response.text()).toContain('That email is taken.');
  });

  test('a 5xx AppError hides its message and drops a half-built redirect', async () => {
    const response = await fetch(`${base}/other`, { redirect: 'manual' });
    expect(response.status).toBe(500);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).not.toContain('secret internal detail');
  });
});
