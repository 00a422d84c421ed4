/**
 * A stand-in for the auth service's HTTP side on a free loopback port, for the resource servers'
 * tests (gateway, proxy):
 * - `POST /oauth/introspect` (RFC 7662) answers the test's confidential client only
 *   (client_secret_basic), with the claims the test set per token, `{ active: false }` for others;
 * - every other path is recorded (method, url, headers, body size) and echoed, so a test sees what
 *   a resource server forwarded; `/login`, `/oauth/slow` and `/oauth/stream` misbehave on purpose.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOKEN_INACTIVE_HEADER } from '@pag/contracts';
import { closeServer } from '../lifecycle/http-server.ts';

/** The introspection client a resource server under test signs in as (INTROSPECTION_CLIENT_ID/SECRET). */
export const TEST_INTROSPECTION_CLIENT = {
  id: 'resource-server-for-tests',
  secret: 'resource-server-secret-for-tests-0123456789',
};
/** The TOKEN_TAG_KEYS a resource server under test verifies tokens of ours with. */
export const TEST_TOKEN_TAG_KEY = 'resource-server-tests-token-tag-key-0123456789';

export interface FakeAuthArrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
}

export interface IssuedToken {
  accountId: string;
  scopes: string[];
  /** The resource the token is for (`aud`), e.g. `${PUBLIC_URL}/api/v1`. */
  audience: string;
}

export class FakeAuthServer implements AsyncDisposable {
  readonly server: Server = createServer((req, res) => {
    this.#route(req, res).catch(() => res.destroy());
  });
  /** The introspection answer per token; a token not here is inactive. */
  readonly tokens = new Map<string, Record<string, unknown>>();
  /** Why an inactive token is, as the auth service names it (TOKEN_INACTIVE_HEADER); absent: unknown. */
  readonly inactive = new Map<string, 'expired' | 'revoked'>();
  /** What arrived on any path but introspection, in order. */
  readonly arrivals: FakeAuthArrival[] = [];
  introspections = 0;
  /** /oauth/slow and /oauth/stream wait for this before finishing. */
  release: Promise<void> = Promise.resolve();
  url = '';

  static async start(): Promise<FakeAuthServer> {
    const fake = new FakeAuthServer();
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** An active bearer token of an agent client for the account, with these scopes and audience. */
  issue(token: string, claims: IssuedToken): string {
    this.tokens.set(token, {
      active: true,
      token_type: 'Bearer',
      client_id: 'agent-client',
      account_id: claims.accountId,
      sub: claims.accountId,
      scope: claims.scopes.join(' '),
      aud: claims.audience,
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    return token;
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
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
    const { id, secret } = TEST_INTROSPECTION_CLIENT;
    if (req.headers.authorization !== `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    this.introspections += 1;
    const token = new URLSearchParams(body).get('token') ?? '';
    const reason = this.tokens.has(token) ? undefined : this.inactive.get(token);
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(reason === undefined ? {} : { [TOKEN_INACTIVE_HEADER]: reason }),
    });
    res.end(JSON.stringify(this.tokens.get(token) ?? { active: false }));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return closeServer(this.server, 1_000);
  }
}
