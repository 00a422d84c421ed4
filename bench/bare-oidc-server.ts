/**
 * The OAuth baseline: a bare oidc-provider (the same package and version as the auth service)
 * with its default in-memory adapter, configured only as far as the two measured endpoints need:
 * one public client (PKCE, refresh_token grant, refresh tokens rotated on every use), opaque
 * access tokens for one resource (resource indicators, as the auth service issues them), and
 * introspection for one confidential client (client_secret_basic), on the auth service's paths.
 *
 * The adapter is oidc-provider's default one (lib/adapters/memory_adapter.js), given a larger
 * LRU store: the default store holds about a thousand entries, and each refresh writes two, so
 * under load a token waiting for its first use is evicted within a fraction of a second (a
 * connection that autocannon's first round reaches late then fails on its very first request,
 * "refresh token not found").
 *
 * No interactions are run: `POST /bench/tokens?count=N` mints N token pairs through the
 * provider's own models, one grant each.
 *
 * Usage: node bench/bare-oidc-server.ts
 * Prints `bench: <JSON of BareOAuthSetup>`, then `ready: <url>` once listening.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from 'oidc-provider';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';
import type { BareOAuthSetup, TokenPair } from './oauth-subject.ts';

const PUBLIC_CLIENT = 'bench-agent';
const RESOURCE_SERVER = 'bench-resource-server';
const SCOPE = 'read';
const ACCOUNT = 'bench-owner';
const HOUR = 3600;

let handle: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => {
  res.statusCode = 503;
  res.end();
};
const server = createServer((req, res) => handle(req, res));
server.keepAliveTimeout = 5_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const resource = `${issuer}/api/v1`;
const resourceServerSecret = randomBytes(32).toString('base64url');
const resourceServerInfo = { scope: SCOPE, audience: resource, accessTokenFormat: 'opaque' as const };

// Far more than a whole `pnpm bench` writes (about 2 entries per refresh).
const store = new LRU({ maxSize: 2_000_000 });
const provider = new Provider(issuer, {
  adapter: (model: string) => new MemoryAdapter(model, store),
  clients: [
    {
      client_id: PUBLIC_CLIENT,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1:9/callback'],
    },
    {
      client_id: RESOURCE_SERVER,
      client_secret: resourceServerSecret,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    },
  ],
  pkce: { required: () => true },
  // The auth service's paths, so that both subjects take the same requests.
  routes: { token: '/oauth/token', introspection: '/oauth/introspect' },
  rotateRefreshToken: true,
  // The auth service's lifetimes (services/auth/src/provider/ttl.ts), which also keeps
  // oidc-provider from warning about its defaults.
  ttl: { AccessToken: HOUR, RefreshToken: 30 * 24 * HOUR, Grant: 365 * 24 * HOUR },
  features: {
    devInteractions: { enabled: false },
    introspection: {
      enabled: true,
      allowedPolicy: (_ctx, client) => client.clientId === RESOURCE_SERVER,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => resourceServerInfo,
    },
  },
});
const found = await provider.Client.find(PUBLIC_CLIENT);
if (found === undefined) throw new Error(`client ${PUBLIC_CLIENT} missing`);
const client: Client = found;

async function mint(): Promise<TokenPair> {
  const grant = new provider.Grant({ accountId: ACCOUNT, clientId: PUBLIC_CLIENT });
  grant.addResourceScope(resource, SCOPE);
  const grantId = await grant.save();
  const accessToken = await new provider.AccessToken({
    client,
    accountId: ACCOUNT,
    grantId,
    gty: 'authorization_code',
    scope: SCOPE,
    resourceServer: new provider.ResourceServer(resource, resourceServerInfo),
  }).save();
  const refreshToken = await new provider.RefreshToken({
    client,
    accountId: ACCOUNT,
    grantId,
    gty: 'authorization_code',
    scope: SCOPE,
    resource,
  }).save();
  return { clientId: PUBLIC_CLIENT, accessToken, refreshToken };
}

const oidc = provider.callback();
handle = async (req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  if (req.method !== 'POST' || url.pathname !== '/bench/tokens') return oidc(req, res);
  const count = Number(url.searchParams.get('count'));
  if (!Number.isInteger(count) || count < 1 || count > 10_000) {
    res.writeHead(400).end();
    return;
  }
  const tokens: TokenPair[] = [];
  for (let i = 0; i < count; i += 1) tokens.push(await mint());
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokens));
};

const setup: BareOAuthSetup = {
  introspectionClient: { clientId: RESOURCE_SERVER, clientSecret: resourceServerSecret },
};
process.stdout.write(`bench: ${JSON.stringify(setup)}\nready: ${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
