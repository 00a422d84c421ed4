import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeServer, createLogger, koaErrorHandler, listen } from '@pag/kit';
import { gatewayHeaders, TEST_GATEWAY_SECRET } from '@pag/kit/testing';
import Koa from 'koa';
import { gatewayOnly } from './gateway-only.ts';

const INTROSPECTION = '/oauth/introspect';
const logger = createLogger({ service: 'auth', level: 'silent' });
const servers: ReturnType<typeof createServer>[] = [];

/** The middleware in a koa app set up as the service's (`proxy` on), answering with koa's ctx.ip. */
async function echoClientAddress(secret: string | undefined): Promise<string> {
  const app = new Koa({ proxy: true });
  app.use(koaErrorHandler(logger));
  app.use(gatewayOnly(secret, INTROSPECTION, logger));
  app.use((ctx) => {
    ctx.body = { ip: ctx.ip };
  });
  const server = createServer(app.callback());
  servers.push(server);
  return `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
}

let base: string;
beforeAll(async () => {
  base = await echoClientAddress(TEST_GATEWAY_SECRET);
});
afterAll(async () => {
  for (const server of servers) await closeServer(server);
});

const CLAIMED = { 'x-forwarded-for': '203.0.113.7' };

async function send(path: string, method: string, headers: Record<string, string>, at = base) {
  const response = await fetch(`${at}${path}`, { method, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('gatewayOnly', () => {
  test('a request the gateway signed passes, and its X-Forwarded-For names the client', async () => {
    const answer = await send('/login?next=%2Fdashboard', 'GET', {
      ...CLAIMED,
      ...gatewayHeaders('GET', '/login?next=%2Fdashboard'),
    });
    expect(answer).toEqual({ status: 200, body: { ip: '203.0.113.7' } });
  });

  test('anything else is 403 GATEWAY_ONLY: unsigned, signed for another path, or under another secret', async () => {
    const refused = [
      await send('/login', 'GET', CLAIMED),
      await send('/login', 'GET', { ...CLAIMED, ...gatewayHeaders('GET', '/dashboard') }),
      await send('/oauth/token', 'POST', { ...CLAIMED, ...gatewayHeaders('GET', '/oauth/token') }),
      await send('/login', 'GET', {
        ...CLAIMED,
        ...gatewayHeaders('GET', '/login', { secret: 'another-deployment-secret-0123456789ab' }),
      }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'GATEWAY_ONLY' } });
    }
  });

  test('introspection is open to resource servers, but their X-Forwarded-For is not believed', async () => {
    expect(await send(INTROSPECTION, 'POST', CLAIMED)).toEqual({ status: 200, body: { ip: '127.0.0.1' } });
    expect((await send(INTROSPECTION, 'GET', CLAIMED)).status).toBe(403);
  });

  test('without a gateway in front (no secret), nothing is refused and no X-Forwarded-For believed', async () => {
    const alone = await echoClientAddress(undefined);
    expect(await send('/login', 'GET', CLAIMED, alone)).toEqual({ status: 200, body: { ip: '127.0.0.1' } });
  });
});
