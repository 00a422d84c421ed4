/**
 * A server behind the gateway serves only requests carrying the gateway's proof.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import express from 'express';
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { createLogger } from '../log/logger.ts';
import { gatewayHeaders, TEST_GATEWAY_SECRET } from '../testing/gateway-proof.ts';
import { errorHandler } from './error-handler.ts';
import { gatewayOnly } from './gateway-only.ts';
import { requestId } from './request-id.ts';

let server: Server;
let url = '';
beforeAll(async () => {
  const logger = createLogger({ service: 'test', level: 'silent' });
  const app = express();
  app.use(requestId);
  app.use(gatewayOnly('proxy', TEST_GATEWAY_SECRET, logger));
  app.use((_req, res) => {
    res.json({ served: true });
  });
  app.use(errorHandler({ logger, publicUrl: 'https://gateway.example' }));
  server = createServer(app);
  url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
});
afterAll(async () => {
  await closeServer(server);
});

test("with the gateway's proof the request goes on", async () => {
  const path = '/api/v1/services/github/user?page=1';
  const answer = await fetch(`${url}${path}`, { headers: gatewayHeaders('GET', path) });
  expect(answer.status).toBe(200);
});

test('without it, or with a proof of another request: 403 GATEWAY_ONLY', async () => {
  const missing = await fetch(`${url}/api/v1/services/github/user`);
  expect(missing.status).toBe(403);
  expect(await missing.json()).toMatchObject({
    error: {
      code: 'GATEWAY_ONLY',
      message: 'The proxy service answers the gateway only (gateway proof missing).',
    },
  });
  const other = await fetch(`${url}/api/v1/services/github/user`, {
    headers: gatewayHeaders('GET', '/api/v1/services/github/repos'),
  });
  expect(other.status).toBe(403);
});
