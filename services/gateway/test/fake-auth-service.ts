/**
 * A stand-in for the auth service on a free loopback port: RFC 7662 introspection for the
 * gateway's client (tokens set by the test), and for every other path a record of what arrived
 * (headers, body) so tests can see what the gateway forwarded. A few paths misbehave on purpose.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '@pag/kit';

export const INTROSPECTION_CLIENT = { id: 'gateway-rs', secret: 'gateway-secret-for-tests' };
/** The TOKEN_TAG_KEYS the gateway under test verifies tokens of ours with. */
export const TOKEN_TAG_KEY = 'gateway-tests-token-tag-key-0123456789';

export interface Arrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
}

export class FakeAuthService implements AsyncDisposable {
  readonly server: Server = createServer((req, res) => void this.#route(req, res));
  readonly tokens = new Map<string, Record<string, unknown>>();
  readonly arrivals: Arrival[] = [];
  introspections = 0;
  /** /oauth/slow and /oauth/stream wait for this before finishing. */
  release: Promise<void> = Promise.resolve();
  url = '';

  static async start(): Promise<FakeAuthService> {
    const fake = new FakeAuthService();
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let bodyBytes = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      bodyBytes += (chunk as Buffer).length;
      if (req.url === '/oauth/introspect') chunks.push(chunk as Buffer);
    }
    if (req.url === '/oauth/introspect') return this.#introspect(req, Buffer.concat(chunks).toString(), res);
    this.arrivals.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes });
    if (req.url === '/login') {
      res.writeHead(303, {
        location: '/interaction/abc',
        'set-cookie': '_interaction=abc; path=/; httponly',
      });
      return void res.end();
    }
    if (req.url === '/oauth/slow') {
      await this.release;
      return void res.end('late');
    }
    if (req.url === '/oauth/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk\n');
      await this.release;
      return void res.end('last chunk\n');
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'fake-auth' });
    res.end(JSON.stringify({ path: req.url, bodyBytes }));
  }

  #introspect(req: IncomingMessage, body: string, res: ServerResponse): void {
    const expected = Buffer.from(`${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}`).toString(
      'base64',
    );
    if (req.headers.authorization !== `Basic ${expected}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    this.introspections += 1;
    const token = new URLSearchParams(body).get('token') ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(this.tokens.get(token) ?? { active: false }));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return closeServer(this.server, 1_000);
  }
}
