/**
 * The proxy's in-process entry (docs/adr/0069, 0074) under an outer express app standing in for
 * the embedded gateway, over real HTTP: the steps run on the gateway's own request with the
 * route and caller the gateway handed over (no second express app, no second route match), and
 * they are the proxy's own steps (its scope check, its error handler).
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RouteDefinition } from '@pag/contracts';
import { routeById } from '@pag/contracts';
import type { Handover } from '@pag/kit';
import { checkScope, closeServer, createLogger, errorHandler, listen, runSteps } from '@pag/kit';
import type { Request, Response } from 'express';
import express from 'express';
import { proxyRoute } from './app.ts';
import { inProcessEntry } from './in-process.ts';
import { state } from './state.ts';

const PUBLIC_URL = 'https://gateway.example';
const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const logger = createLogger({ service: 'in-process-test', level: 'silent' });

/** The last step: what the proxy's steps saw of the request. */
const seen = (req: Request, res: Response) => {
  const { route, params, identity, requestId } = state(res);
  res.json({ route: route?.id, params, identity, requestId, gatewayApp: req.app === gateway });
};
const entry = inProcessEntry({
  run: runSteps([checkScope(PUBLIC_URL), seen], errorHandler({ logger, publicUrl: PUBLIC_URL })),
  serves: proxyRoute,
  publicUrl: PUBLIC_URL,
});

/** What the test's gateway hands over for each request: read from its headers, for the test only. */
function handover(req: Request): Handover {
  const route: RouteDefinition = routeById(req.get('x-route') ?? 'proxyGet');
  return {
    caller: {
      requestId: 'req-1',
      startedAt: process.hrtime.bigint(),
      clientAddress: '127.0.0.1',
      accountId: req.get('x-account') ?? ACCOUNT,
      clientId: 'agent-client',
      scopes: (req.get('x-scopes') ?? 'services:github:read').split(' '),
      agentId: null,
    },
    route,
    params: { service: 'github', path: 'user' },
    report: () => {},
  };
}

const gateway = express();
gateway.use((req, res, next) => entry(req, res, handover(req), next));
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(gateway);
  base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
});

afterAll(async () => {
  await closeServer(server);
});

async function call(headers: Record<string, string>, method = 'GET') {
  // The path is not the proxy's: only the handed-over route and parameters may be used.
  const response = await fetch(`${base}/not/matched/again`, { method, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test("the steps run on the gateway's own request with the route and caller it handed over", async () => {
  expect(await call({})).toEqual({
    status: 200,
    body: {
      route: 'proxyGet',
      params: { service: 'github', path: 'user' },
      identity: {
        accountId: ACCOUNT,
        scopes: ['services:github:read'],
        clientId: 'agent-client',
        agentId: null,
      },
      requestId: 'req-1',
      gatewayApp: true,
    },
  });
});

test("a write with a read token is refused by the proxy's own scope step", async () => {
  const { status, body } = await call({ 'x-route': 'proxyPost' }, 'POST');
  expect(status).toBe(403);
  expect(body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', requestId: 'req-1' });
});

test('a route of the table the proxy does not serve is unknown to it', async () => {
  const { status, body } = await call({ 'x-route': 'tokenCapabilities' });
  expect(status).toBe(404);
  expect(body.error).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
});

test('a caller whose account is no account id is refused as behind the listener', async () => {
  const { status, body } = await call({ 'x-account': 'not-an-account' });
  expect(status).toBe(401);
  expect(body.error).toMatchObject({ code: 'INVALID_TOKEN' });
});
