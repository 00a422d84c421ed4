import { describe, expect, test } from '@jest/globals';
import { Connector, PROVIDERS, providerSchema, ServiceName } from '@pag/contracts';
import { CONNECTOR_NAMES, resolveConnectors } from './catalogue.ts';

describe('connector catalogue', () => {
  test('names and resources fit the scope grammar; base URLs are the real https APIs', () => {
    const connectors = resolveConnectors();
    expect(connectors.size).toBe(PROVIDERS.length);
    for (const connector of connectors.values()) {
      expect(ServiceName.safeParse(connector.name).success).toBe(true);
      expect(
        Connector.safeParse({
          ...connector,
          connected: false,
          resources: [...connector.resources],
          connection: 'not_connected',
          canConnect: false,
          authorizationOrigin: null,
        }).success,
      ).toBe(true);
      expect(new URL(connector.baseUrl).protocol).toBe('https:');
      expect(connector.baseUrl).not.toMatch(/\/$/);
    }
  });

  test('every OAuth connector needs a client before it can connect; API-key connectors never do', () => {
    const connectors = resolveConnectors({ clients: { github: { clientId: 'id', clientSecret: 'secret' } } });
    expect(connectors.get('github')?.client).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(connectors.get('slack')?.client).toBeNull();
    expect(connectors.get('stripe')).toMatchObject({ authType: 'api_key', oauth: null, client: null });
  });

  test('a base URL can be overridden by name; the rest of the connector stays', () => {
    const connectors = resolveConnectors({ baseUrls: { github: 'http://127.0.0.1:9000/fake/' } });
    expect(connectors.get('github')).toMatchObject({
      baseUrl: 'http://127.0.0.1:9000/fake',
      credential: { type: 'bearer' },
      displayName: 'GitHub',
    });
    expect(connectors.get('slack')?.baseUrl).toBe('https://slack.com/api');
  });

  test("a deployment's own connector joins the catalogue with its client", () => {
    const custom = providerSchema({ allowLoopback: true }).parse({
      name: 'acme',
      displayName: 'Acme',
      auth: {
        type: 'oauth2',
        authorizationUrl: 'http://127.0.0.1:4000/authorize',
        tokenUrl: 'http://127.0.0.1:4000/token',
        clientAuth: 'client_secret_basic',
        pkce: true,
        defaultScopes: ['read'],
        refreshTokens: 'rotating',
        revocation: null,
      },
      api: {
        baseUrl: 'http://127.0.0.1:4000/api',
        allowedHosts: ['127.0.0.1:4000'],
        credential: { type: 'bearer' },
      },
      resources: ['items'],
      access: { style: 'rest', readAccess: 'GET reads.', overrideParameters: ['_method'] },
    });
    const connectors = resolveConnectors({
      custom: [{ ...custom, client: { clientId: 'c', clientSecret: 's' } }],
    });
    expect(connectors.get('acme')).toMatchObject({ authType: 'oauth2', client: { clientId: 'c' } });
    expect(CONNECTOR_NAMES).not.toContain('acme');
  });
});
