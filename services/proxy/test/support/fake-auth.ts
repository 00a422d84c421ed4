/**
 * A stand-in for the auth service's RFC 7662 endpoint on a free loopback port: it answers the
 * proxy's confidential client only (client_secret_basic), with the claims the test set per token.
 */
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '@pag/kit';

export const INTROSPECTION_CLIENT = { id: 'proxy-rs', secret: 'proxy-secret-for-tests-0123456789abcdef' };
/** The TOKEN_TAG_KEYS the proxy under test verifies tokens of ours with. */
export const TOKEN_TAG_KEY = 'proxy-tests-token-tag-key-0123456789abc';

export class FakeAuth implements AsyncDisposable {
  readonly server: Server = createServer((req, res) => {
    this.#serve(req, res).catch(() => res.destroy());
  });
  readonly tokens = new Map<string, Record<string, unknown>>();
  introspections = 0;
  url = '';

  static async start(): Promise<FakeAuth> {
    const fake = new FakeAuth();
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** An active bearer token for the account with these scopes, issued for `audience`. */
  issue(token: string, claims: { accountId: string; scopes: string[]; audience: string }): string {
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

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const expected = Buffer.from(`${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}`).toString(
      'base64',
    );
    if (req.url !== '/oauth/introspect' || req.headers.authorization !== `Basic ${expected}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    this.introspections += 1;
    const token = new URLSearchParams(Buffer.concat(chunks).toString()).get('token') ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(this.tokens.get(token) ?? { active: false }));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return closeServer(this.server, 1_000);
  }
}
