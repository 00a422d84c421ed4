/**
 * For the router tests: our two routers on a bare koa app in front of a real oidc-provider 9,
 * configured minimally (its in-memory adapter, one public client, PKCE required, our API as
 * the only resource), listening on a free loopback port.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { ScopeCatalogue } from '@pag/contracts';
import { createLogger } from '@pag/kit';
import { freePort } from '@pag/kit/testing';
import Koa from 'koa';
import Provider, { errors } from 'oidc-provider';
import type { AccountStore } from '../store/account-store.ts';
import type { Agent } from '../store/agent-store.ts';
import { createInteractionRouter } from './interaction-router.ts';
import { createOwnerRouter } from './owner-router.ts';

export const CLIENT = {
  client_id: 'agent-app',
  client_name: 'Helpful <Agent> & Co',
  redirect_uri: 'https://agent.example/callback',
} as const;

/** What the consent page told the agent store. */
export interface ConsentRecord {
  accountId: string;
  clientId: string;
  name: string;
  scopes: string[];
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
}

export interface TestAuthApp extends AsyncDisposable {
  readonly consents: ConsentRecord[];
  readonly url: string;
  readonly apiResource: string;
  readonly provider: Provider;
  close(): Promise<void>;
}

export interface TestAuthAppOptions {
  /** The owner router's PUBLIC_URL; defaults to the app's own loopback URL. */
  publicUrl?: string;
}

export async function startTestAuthApp(
  accounts: AccountStore,
  options: TestAuthAppOptions = {},
): Promise<TestAuthApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const apiResource = `${url}/api/v1`;
  const resourceScopes = [
    ...Object.keys(ScopeCatalogue).filter((s) => !s.includes('{')),
    'services:github:read',
  ];
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(url, {
    clients: [
      {
        client_id: CLIENT.client_id,
        client_name: CLIENT.client_name,
        redirect_uris: [CLIENT.redirect_uri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    cookies: { keys: ['provider-cookie-key-used-only-by-these-tests'] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== apiResource) throw new errors.InvalidTarget();
          return { scope: resourceScopes.join(' '), audience: apiResource, accessTokenFormat: 'opaque' };
        },
      },
    },
    scopes: ['openid', 'offline_access'],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600 },
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    routes: { authorization: '/oauth/authorize', token: '/oauth/token', jwks: '/oauth/jwks' },
  });

  const logger = createLogger({ service: 'auth-test', level: 'silent' });
  const app = new Koa();
  app.keys = ['owner-cookie-key-used-only-by-these-tests-0123'];
  app.proxy = true;
  const consents: ConsentRecord[] = [];
  const agents = {
    // The consent is recorded as given; what AgentStore makes of it is tested with the service.
    recordConsent: async (input: ConsentRecord) => {
      consents.push(input);
      return {} as Agent;
    },
    recordConsentRefused: async () => {},
  };
  app.use(createInteractionRouter({ provider, accounts, agents, logger }).routes());
  app.use(createOwnerRouter({ accounts, logger, config: { publicUrl: options.publicUrl ?? url } }).routes());
  const oidc = provider.callback();
  app.use((ctx) => {
    ctx.respond = false;
    return oidc(ctx.req, ctx.res);
  });

  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  return { url, apiResource, provider, consents, close, [Symbol.asyncDispose]: close };
}
