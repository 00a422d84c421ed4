/**
 * The koa error handler answers what the middleware chain throws in the contracts' error body:
 * an AppError with its status, headers and message; anything else as a masked 500.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import Koa from 'koa';
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { createLogger } from '../log/logger.ts';
import { koaErrorHandler } from './koa-errors.ts';

let server: Server;
let url = '';
beforeAll(async () => {
  const app = new Koa();
  app.silent = true;
  app.use(koaErrorHandler(createLogger({ service: 'test', level: 'silent' })));
  app.use((ctx) => {
    if (ctx.path === '/refused') {
      throw new AppError('METHOD_NOT_ALLOWED', 'Only GET here.', { headers: { allow: 'GET' } });
    }
    if (ctx.path === '/bug') throw new Error('a bug with a secret stack');
    ctx.body = 'fine';
  });
  server = createServer(app.callback());
  url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
});
afterAll(async () => {
  await closeServer(server);
});

test('an AppError: its status, headers and body, not cached', async () => {
  const answer = await fetch(`${url}/refused`, { headers: { 'x-request-id': 'req-koa-1' } });
  expect(answer.status).toBe(405);
  expect(answer.headers.get('allow')).toBe('GET');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(await answer.json()).toEqual({
    error: {
      code: 'METHOD_NOT_ALLOWED',
      message: 'Only GET here.',
      hint: expect.any(String),
      requestId: 'req-koa-1',
    },
  });
});

test('anything else: a masked 500 with a request id, never a stack trace', async () => {
  const answer = await fetch(`${url}/bug`);
  expect(answer.status).toBe(500);
  const text = await answer.text();
  expect(text).not.toContain('secret stack');
  const body = JSON.parse(text) as { error: { code: string; message: string; requestId: string } };
  expect(body.error).toMatchObject({
    code: 'INTERNAL_ERROR',
    message: 'The request could not be completed.',
  });
  expect(body.error.requestId).not.toBe('');
});

test('what the chain answers itself is left alone', async () => {
  const answer = await fetch(`${url}/fine`);
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe('fine');
});
