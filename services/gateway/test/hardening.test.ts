/**
 * Hardening at the door: bodies checked against the route's schema (strict JSON, fields named),
 * header size and slow-client limits of the HTTP server, security headers and where CORS is
 * allowed, and no secret ever echoed in an answer or a log line.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import { createLogger, createMetrics, MemoryBus } from '@pag/kit';
import {
  freePort,
  TEST_GATEWAY_SECRET,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { loadGatewayConfig } from '../src/config.ts';
import type { RunningGateway } from '../src/service.ts';
import { startGateway } from '../src/service.ts';
import type { TestGateway } from './start-test-gateway.ts';
import type { TokenGateway } from './start-token-gateway.ts';
import { PUBLIC_URL, startTokenGateway } from './start-token-gateway.ts';

let stack: TokenGateway;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startTokenGateway({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
  gateway = stack.gateway;
});
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, error: ErrorBody.safeParse(JSON.parse(text)).data?.error };
}

const handshake = { agentId: 'claude-desktop', requestedScopes: ['read'], message: 'Reads your calendar.' };

describe('bodies', () => {
  test('a field of the wrong type: 400 INVALID_REQUEST naming the field', async () => {
    const { status, error } = await post('/api/v1/handshakes', JSON.stringify({ ...handshake, agentId: 42 }));
    expect(status).toBe(400);
    expect(error?.code).toBe('INVALID_REQUEST');
    expect(error?.message).toContain('agentId');
  });

  test('an unknown field is refused by name', async () => {
    const { status, error } = await post('/api/v1/handshakes', JSON.stringify({ ...handshake, admin: true }));
    expect(status).toBe(400);
    expect(error?.message).toContain('admin');
  });

  test.each([
    ['plainly', '{"agentId":"a","agentId":"b","requestedScopes":["read"]}'],
    ['through an escape', '{"agentId":"a","\\u0061gentId":"b","requestedScopes":["read"]}'],
    ['in a nested object', '{"x":{"k":1,"k":2}}'],
  ])('a key twice in one object (%s): 400 MALFORMED_JSON', async (_how, body) => {
    const { status, error } = await post('/api/v1/handshakes', body);
    expect(status).toBe(400);
    expect(error?.code).toBe('MALFORMED_JSON');
  });

  test.each(['"just a string"', '42', 'null', 'true'])('a top-level %s: 400 MALFORMED_JSON', async (body) => {
    const { status, error } = await post('/api/v1/handshakes', body);
    expect(status).toBe(400);
    expect(error?.code).toBe('MALFORMED_JSON');
  });

  test('an array where the schema wants an object: 400 INVALID_REQUEST', async () => {
    const { status, error } = await post('/api/v1/handshakes', JSON.stringify([handshake]));
    expect(status).toBe(400);
    expect(error?.code).toBe('INVALID_REQUEST');
  });
});

describe('the HTTP server', () => {
  test('request headers over 16 KiB: 431', async () => {
    const response = await fetch(`${gateway.url}/api/v1/`, {
      headers: { 'x-padding': 'a'.repeat(20 * 1024) },
    });
    expect(response.status).toBe(431);
  });

  /** Sends `start`, then `drip` every 200 ms; resolves with what came back and when the socket closed. */
  async function slowClient(start: string, drip: string) {
    const { port } = new URL(gateway.url);
    const socket = connect(Number(port), '127.0.0.1');
    const started = performance.now();
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', () => {});
    socket.write(start);
    const timer = setInterval(() => socket.writable && socket.write(drip), 200);
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(timer);
    return { received, seconds: (performance.now() - started) / 1000 };
  }

  test('a client sending its headers slowly is cut off after HEADERS_TIMEOUT_MS', async () => {
    const { received, seconds } = await slowClient('GET /api/v1/ HTTP/1.1\r\nHost: gw\r\n', 'X-Slow: 1\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    // 1 s timeout, checked every second by node:http.
    expect(seconds).toBeGreaterThan(0.9);
    expect(seconds).toBeLessThan(4);
  });

  test('a client sending its body slowly is cut off after REQUEST_TIMEOUT_MS', async () => {
    const head =
      'POST /api/v1/handshakes HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const { seconds } = await slowClient(head, ' ');
    expect(seconds).toBeGreaterThan(1.9);
    expect(seconds).toBeLessThan(5);
  });
});

describe('headers', () => {
  test('every route answer carries the security headers and a CSP that lets nothing run', async () => {
    const response = await fetch(`${gateway.url}/api/v1/quick-start`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  test.each(['/api/v1/', '/api/v1/capabilities', '/openapi.json', '/llms.txt'])(
    'public document %s may be read from any origin, without credentials',
    async (path) => {
      const response = await fetch(`${gateway.url}${path}`, { headers: { origin: 'https://tool.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    },
  );

  test('nothing that takes a token answers CORS', async () => {
    stack.issue('cors-token', 'read');
    for (const path of ['/api/v1/tokens/me/capabilities', '/api/v1/gateway/context', '/api/v1/nothing']) {
      const response = await fetch(`${gateway.url}${path}`, {
        headers: { origin: 'https://tool.example', authorization: 'Bearer cors-token' },
      });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('secrets are never echoed', () => {
  const SECRET = 'sk-live-Zr8Qk2mW9vX4tB7nP1cL5hD3';
  let lines: string[];
  let gateways: RunningGateway[];
  let buses: MemoryBus[];

  /** A gateway logging everything (trace) into `lines`. */
  async function loggedGateway(authUrl: string): Promise<string> {
    const logger = createLogger({
      service: 'gateway',
      level: 'trace',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const bus = new MemoryBus({ logger });
    const config = loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL,
      AUTH_URL: authUrl,
      GATEWAY_SECRET: TEST_GATEWAY_SECRET,
      DATABASE_URL: stack.postgres.url,
      INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
      TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
      INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
      DISPATCH_TIMEOUT_MS: '500',
    });
    const running = await startGateway({
      config,
      bus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    gateways.push(running);
    buses.push(bus);
    return `http://127.0.0.1:${running.port}`;
  }

  beforeAll(async () => {
    lines = [];
    gateways = [];
    buses = [];
  });
  afterAll(async () => {
    for (const running of gateways) await running.close();
    for (const bus of buses) await bus.close();
  });

  test('a wrong token, in every place a client may put it, appears in no answer and no log line', async () => {
    const up = await loggedGateway(stack.auth.url);
    const down = await loggedGateway(`http://127.0.0.1:${await freePort()}`);
    const answers: string[] = [];
    const send = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, init);
      answers.push(JSON.stringify([...response.headers]), await response.text());
    };
    for (const base of [up, down]) {
      await send(`${base}/api/v1/tokens/me/capabilities`, { headers: { authorization: `Bearer ${SECRET}` } });
      await send(`${base}/api/v1/tokens/me/capabilities`, { headers: { authorization: `Basic ${SECRET}` } });
      await send(`${base}/api/v1/tokens/me/capabilities`, {
        headers: { authorization: `Bearer ${SECRET} x` },
      });
      await send(`${base}/api/v1/tokens/me/capabilities?access_token=${SECRET}`);
      await send(`${base}/api/v1/nothing-here?token=${SECRET}`, {
        headers: { authorization: `Bearer ${SECRET}` },
      });
      await send(`${base}/api/v1/services/github/repos`, { headers: { authorization: `Bearer ${SECRET}` } });
      for (const body of [`{"agentId": ${SECRET}}`, `{"agentId":"${SECRET}","agentId":"x"}`, `"${SECRET}"`]) {
        await send(`${base}/api/v1/handshakes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      }
    }
    expect(answers.length).toBeGreaterThan(10);
    expect(lines.length).toBeGreaterThan(0);
    // Nor any 10 characters of it: a parser's error message quotes only a window of its input.
    const windows = Array.from({ length: SECRET.length - 9 }, (_, i) => SECRET.slice(i, i + 10));
    for (const text of [...answers, ...lines]) {
      for (const part of windows) expect(text).not.toContain(part);
    }
  });
});
