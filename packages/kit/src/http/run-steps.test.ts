/**
 * kit's runSteps: express steps called in order without an express app of their own, on a
 * request an express app already received (the proxy's in-process entry, docs/adr/0074). Over
 * real HTTP: an outer express app hands each request to the runner, as the gateway hands a
 * proxied call to the proxy.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { createLogger } from '../log/logger.ts';
import { errorHandler } from './error-handler.ts';
import { runSteps } from './run-steps.ts';

const logger = createLogger({ service: 'run-steps-test', level: 'silent' });
const failures = errorHandler({ logger, publicUrl: 'https://gateway.example' });

/** Each request's trail of steps, answered as JSON by the last step. */
const trail = (name: string): RequestHandler => {
  return (_req: Request, res: Response, next: NextFunction) => {
    (res.locals.trail as string[]).push(name);
    next();
  };
};
const answer: RequestHandler = (req: Request, res: Response) => {
  res.json({ trail: res.locals.trail, sameApp: req.app === outer, path: req.path });
};

const runners = {
  '/ordered': runSteps([trail('a'), trail('b'), answer], failures),
  '/refused': runSteps(
    [trail('a'), (_req, _res, next) => next(new AppError('INVALID_REQUEST', 'refused in b')), answer],
    failures,
  ),
  '/thrown': runSteps(
    [
      () => {
        throw new AppError('PAYLOAD_TOO_LARGE', 'thrown in a');
      },
      answer,
    ],
    failures,
  ),
  '/rejected': runSteps(
    [
      async () => {
        await Promise.resolve();
        throw new AppError('INVALID_REQUEST', 'rejected in a');
      },
      answer,
    ],
    failures,
  ),
  '/passed-on': runSteps([trail('a')], failures),
  '/given-error': runSteps([answer], failures),
};

const outer = express();
let server: Server;
let base: string;

beforeAll(async () => {
  outer.use((req, res, next) => {
    res.locals.trail = [];
    const run = runners[req.path as keyof typeof runners];
    if (run === undefined) return next();
    const error = req.path === '/given-error' ? new AppError('ROUTE_NOT_FOUND', 'given') : undefined;
    run(req, res, next, error);
  });
  // Reached only when the runner hands the request back (`done`), as an app's `next` would.
  outer.use((_req, res) => {
    res.status(299).json({ handedBack: true, trail: res.locals.trail });
  });
  server = createServer(outer);
  base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
});

afterAll(async () => {
  await closeServer(server);
});

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('the steps run in order on the outer app’s own request, not one of another app', async () => {
  expect(await get('/ordered')).toEqual({
    status: 200,
    body: { trail: ['a', 'b'], sameApp: true, path: '/ordered' },
  });
});

test('an error passed to next skips the remaining steps and is answered by the error step', async () => {
  const { status, body } = await get('/refused');
  expect(status).toBe(400);
  expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'refused in b' });
});

test('a step that throws, or whose promise rejects, is answered by the error step', async () => {
  expect((await get('/thrown')).status).toBe(413);
  const rejected = await get('/rejected');
  expect([rejected.status, (rejected.body.error as { code: string }).code]).toEqual([400, 'INVALID_REQUEST']);
});

test('after the last step the request goes back to the caller, as from an express app', async () => {
  expect(await get('/passed-on')).toEqual({ status: 299, body: { handedBack: true, trail: ['a'] } });
});

test('an error given at the start goes to the error step before any step runs', async () => {
  const { status, body } = await get('/given-error');
  expect(status).toBe(404);
  expect(body.error).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
});
