/**
 * Dispatch after the pipeline: NATS request/reply for the services reached over the bus (with
 * the caller's identity in message headers, 503 without a responder, 504 when too slow), and the
 * streamed HTTP forwarding of /api/v1/services/* to the proxy service, against a tiny upstream
 * that records what arrived and streams large bodies.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  AuthSubjects,
  BrainSubjects,
  ErrorBody,
  GATEWAY_PROOF_HEADER,
  HANDSHAKE_POLL_INTERVAL_SECONDS,
  MessageHeaders,
} from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { closeServer, verifyGatewayRequest } from '@pag/kit';
import { freePort, TEST_GATEWAY_SECRET } from '@pag/kit/testing';
import type { TokenGateway } from './start-token-gateway.ts';
import { startTokenGateway } from './start-token-gateway.ts';

const MiB = 1024 * 1024;
const HANDSHAKE_ID = 'hs_AAAAAAAAAAAAAAAAAAAAAA';

/** The stand-in proxy service: echoes what arrived; /stream/* streams in both directions. */
class Upstream {
  // A request the gateway cut off (e.g. its timeout) ends here as an aborted read: not a failure
  // of this stand-in, and not to be thrown into whichever test runs next.
  readonly server = createServer((req, res) => this.#serve(req, res).catch(() => res.destroy()));
  url = '';
  /** Resolves with the first chunk of a /stream/upload body, before the client has sent the rest. */
  firstChunk = Promise.withResolvers<number>();
  /** /stream/download sends its last chunk only once this resolves. */
  finishDownload = Promise.withResolvers<void>();

  async start() {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async #serve(req: IncomingMessage, res: ServerResponse) {
    if (req.url?.startsWith('/api/v1/services/files/stream/download')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(64 * 1024, 1));
      await this.finishDownload.promise;
      for (let i = 0; i < 32; i += 1) res.write(Buffer.alloc(MiB, 2));
      return void res.end();
    }
    let bytes = 0;
    for await (const chunk of req) {
      if (bytes === 0) this.firstChunk.resolve((chunk as Buffer).length);
      bytes += (chunk as Buffer).length;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'proxy' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, bytes }));
  }
}

interface Echo {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
}

let stack: TokenGateway;
let upstream: Upstream;

beforeAll(async () => {
  upstream = new Upstream();
  await upstream.start();
  // Generous: a 16 MiB upload through two hops may take a while on a busy machine; the timeout
  // test has a gateway of its own with a short one.
  stack = await startTokenGateway({
    PROXY_URL: upstream.url,
    DISPATCH_TIMEOUT_MS: '10000',
    BODY_LIMIT_BYTES: '4096',
  });
});
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
  await closeServer(upstream.server, 1_000);
});

const url = (path: string) => `${stack.gateway.url}${path}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('over NATS', () => {
  test('the body and the caller identity reach the service; its reply is the answer', async () => {
    stack.issue('brain-token', 'knowledge');
    const seen: BusMessage[] = [];
    const sub = await stack.gateway.bus.handle(BrainSubjects.memoryCreate, (msg) => {
      seen.push(msg);
      return { id: 'mem_1', content: 'noted', createdAt: '2026-01-01T00:00:00.000Z' };
    });
    try {
      const response = await fetch(url('/api/v1/memory'), {
        method: 'POST',
        headers: { ...bearer('brain-token'), 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'noted' }),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ id: 'mem_1' });
      expect(seen).toHaveLength(1);
      expect(seen[0]?.data).toEqual({ params: {}, query: {}, body: { content: 'noted' } });
      expect(seen[0]?.headers).toMatchObject({
        [MessageHeaders.requestId]: response.headers.get('x-request-id'),
        [MessageHeaders.accountId]: 'acc-1',
        [MessageHeaders.clientId]: 'claude-desktop',
        [MessageHeaders.scopes]: 'knowledge',
        [MessageHeaders.tokenKind]: 'dashboard',
        [MessageHeaders.agentId]: 'agt_1',
      });
    } finally {
      await sub.close();
    }
  });

  test("of the client's headers, only those the route names reach the service; a poll says when to ask again", async () => {
    const seen: BusMessage[] = [];
    const sub = await stack.gateway.bus.handle(AuthSubjects.handshakeStatus, (msg) => {
      seen.push(msg);
      return { handshakeId: HANDSHAKE_ID, status: 'pending', interval: HANDSHAKE_POLL_INTERVAL_SECONDS };
    });
    try {
      const response = await fetch(url(`/api/v1/handshakes/${HANDSHAKE_ID}/status`), {
        headers: { 'Handshake-Verifier': 'the-verifier', 'x-other': 'kept out', cookie: 'a=b' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('retry-after')).toBe(String(HANDSHAKE_POLL_INTERVAL_SECONDS));
      expect(seen[0]?.data).toEqual({
        params: { handshakeId: HANDSHAKE_ID },
        query: {},
        body: null,
        headers: { 'handshake-verifier': 'the-verifier' },
      });
      // Polled without the header, nothing is forwarded in its place.
      await fetch(url(`/api/v1/handshakes/${HANDSHAKE_ID}/status`));
      expect(seen[1]?.data).toEqual({
        params: { handshakeId: HANDSHAKE_ID },
        query: {},
        body: null,
        headers: {},
      });
    } finally {
      await sub.close();
    }
  });

  test('a route that names no header receives none, and a route that is not a poll has no Retry-After', async () => {
    stack.issue('quiet-token', 'knowledge');
    const seen: BusMessage[] = [];
    const sub = await stack.gateway.bus.handle(BrainSubjects.memoryCreate, (msg) => {
      seen.push(msg);
      return { id: 'mem_2', content: 'noted', createdAt: '2026-01-01T00:00:00.000Z' };
    });
    try {
      const response = await fetch(url('/api/v1/memory'), {
        method: 'POST',
        headers: {
          ...bearer('quiet-token'),
          'content-type': 'application/json',
          'Handshake-Verifier': 'not for this route',
        },
        body: JSON.stringify({ content: 'noted' }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('retry-after')).toBeNull();
      expect(seen[0]?.data).toEqual({ params: {}, query: {}, body: { content: 'noted' } });
    } finally {
      await sub.close();
    }
  });

  test('no instance of the service: 503 SERVICE_UNAVAILABLE naming it', async () => {
    stack.issue('lonely-token', 'knowledge');
    const response = await fetch(url('/api/v1/brain/knowledge-base'), { headers: bearer('lonely-token') });
    expect(response.status).toBe(503);
    const { error } = ErrorBody.parse(await response.json());
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toContain('brain');
  });

  test('a service slower than DISPATCH_TIMEOUT_MS: 504 UPSTREAM_TIMEOUT naming it', async () => {
    const quick = await stack.startAnother({ DISPATCH_TIMEOUT_MS: '300' });
    stack.issue('slow-token', 'knowledge');
    const late = Promise.withResolvers<void>();
    const sub = await quick.bus.handle(BrainSubjects.knowledgeList, async () => {
      await late.promise;
      return { documents: [] };
    });
    try {
      const response = await fetch(`${quick.url}/api/v1/brain/knowledge-base`, {
        headers: bearer('slow-token'),
      });
      expect(response.status).toBe(504);
      const { error } = ErrorBody.parse(await response.json());
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.message).toContain('brain');
    } finally {
      late.resolve();
      await sub.close();
    }
  });
});

describe('/api/v1/services/* to the proxy service', () => {
  test('path and query as sent, Authorization passed, identity set by the gateway alone', async () => {
    stack.issue('proxy-token', 'services:github:read');
    const response = await fetch(url('/api/v1/services/github/repos/a%2Fb?per_page=5&q=x'), {
      headers: {
        ...bearer('proxy-token'),
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'evil.example',
        forwarded: 'for=203.0.113.9',
        'x-real-ip': '203.0.113.9',
        'pag-account-id': 'acc-other',
        'pag-scopes': 'full',
        'pag-made-up': 'anything',
        // Kept, as the gateway keeps a caller's safe request id end to end.
        'x-request-id': 'chosen-by-client',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-upstream')).toBe('proxy');
    const echo = (await response.json()) as Echo;
    expect(echo.url).toBe('/api/v1/services/github/repos/a%2Fb?per_page=5&q=x');
    expect(echo.headers.authorization).toBe('Bearer proxy-token');
    expect(echo.headers).toMatchObject({
      [MessageHeaders.accountId]: 'acc-1',
      [MessageHeaders.clientId]: 'claude-desktop',
      [MessageHeaders.scopes]: 'services:github:read',
      [MessageHeaders.tokenKind]: 'dashboard',
      [MessageHeaders.agentId]: 'agt_1',
      [MessageHeaders.requestId]: response.headers.get('x-request-id'),
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': 'gw.example',
      'x-forwarded-proto': 'https',
    });
    expect(echo.headers.forwarded).toBeUndefined();
    expect(echo.headers['x-real-ip']).toBeUndefined();
    expect(echo.headers['pag-made-up']).toBeUndefined();
    // The proof the proxy service checks: the gateway's signature over exactly what it sent.
    const proof = String(echo.headers[GATEWAY_PROOF_HEADER]);
    const sent = {
      method: echo.method,
      path: echo.url,
      requestId: String(echo.headers[MessageHeaders.requestId]),
    };
    expect(verifyGatewayRequest(TEST_GATEWAY_SECRET, sent, proof)).toBe('valid');
  });

  test('the scope is checked before anything is forwarded', async () => {
    stack.issue('read-only', 'services:github:read');
    const response = await fetch(url('/api/v1/services/github/repos'), {
      method: 'POST',
      headers: bearer('read-only'),
      body: 'x',
    });
    expect(response.status).toBe(403);
    expect(ErrorBody.parse(await response.json()).error.code).toBe('INSUFFICIENT_SCOPE');
  });

  test('a request body far over BODY_LIMIT_BYTES streams to the proxy as it is sent', async () => {
    stack.issue('writer', 'services:files:write');
    const req = request(url('/api/v1/services/files/stream/upload'), {
      method: 'PUT',
      headers: { ...bearer('writer'), 'content-type': 'application/octet-stream' },
    });
    const answered = once(req, 'response') as Promise<[IncomingMessage]>;
    req.write(Buffer.alloc(MiB, 7));
    // The proxy has the first chunk while the client is still sending: nothing is buffered.
    expect(await upstream.firstChunk.promise).toBeGreaterThan(0);
    for (let i = 0; i < 15; i += 1) req.write(Buffer.alloc(MiB, 7));
    req.end();
    const [response] = await answered;
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    expect(response.statusCode).toBe(200);
    expect((JSON.parse(Buffer.concat(chunks).toString()) as Echo).bytes).toBe(16 * MiB);
  });

  test('a large answer streams back as the proxy sends it', async () => {
    stack.issue('reader', 'services:files:read');
    const response = await fetch(url('/api/v1/services/files/stream/download'), {
      headers: bearer('reader'),
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The first chunk arrives while the proxy still holds the rest back.
    const first = await reader.read();
    expect(first.value?.length).toBeGreaterThan(0);
    upstream.finishDownload.resolve();
    let bytes = first.value?.length ?? 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.length;
    expect(bytes).toBe(64 * 1024 + 32 * MiB);
  });

  test('without PROXY_URL: 503 SERVICE_UNAVAILABLE naming the proxy service', async () => {
    const bare = await stack.startAnother({ DISPATCH_TIMEOUT_MS: '300' });
    stack.issue('no-proxy', 'services:github:read');
    const response = await fetch(`${bare.url}/api/v1/services/github/repos`, { headers: bearer('no-proxy') });
    expect(response.status).toBe(503);
    const { error } = ErrorBody.parse(await response.json());
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toContain('proxy');
  });

  test('a proxy that is down: 503 with the error body and the request id', async () => {
    const down = await stack.startAnother({ PROXY_URL: `http://127.0.0.1:${await freePort()}` });
    stack.issue('down-proxy', 'services:github:read');
    const response = await fetch(`${down.url}/api/v1/services/github/repos`, {
      headers: bearer('down-proxy'),
    });
    expect(response.status).toBe(503);
    const { error } = ErrorBody.parse(await response.json());
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.requestId).toBe(response.headers.get('x-request-id'));
    expect(response.headers.get('retry-after')).toBe('1');
  });

  test('a proxy replica that closed a kept-alive connection as the request came (it is stopping): a request without body goes again on a fresh connection, one with a body is 503 with Retry-After', async () => {
    // The stand-in answers the first request of each connection and drops the connection when a
    // second one arrives on it, as a replica closing its idle connections on SIGTERM does.
    const seen: string[] = [];
    const stopping = createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return void socket.destroy();
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    });
    stopping.listen(0, '127.0.0.1');
    await once(stopping, 'listening');
    try {
      const gateway = await stack.startAnother({
        PROXY_URL: `http://127.0.0.1:${(stopping.address() as AddressInfo).port}`,
      });
      stack.issue('stopping-proxy', 'services:github:read services:github:write');
      const get = () =>
        fetch(`${gateway.url}/api/v1/services/github/repos`, { headers: bearer('stopping-proxy') });
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      expect(seen).toEqual(['GET /api/v1/services/github/repos', 'GET /api/v1/services/github/repos']);

      // A new kept-alive connection, which the POST then finds closed.
      expect((await get()).status).toBe(200);
      const post = await fetch(`${gateway.url}/api/v1/services/github/issues`, {
        method: 'POST',
        headers: { ...bearer('stopping-proxy'), 'content-type': 'application/json' },
        body: '{"title":"once"}',
      });
      expect(post.status).toBe(503);
      expect(post.headers.get('retry-after')).toBe('1');
      expect(ErrorBody.parse(await post.json()).error.code).toBe('SERVICE_UNAVAILABLE');
      expect(seen).toHaveLength(3);
    } finally {
      await closeServer(stopping, 1_000);
    }
  });
});
