/**
 * Dynamic client registration (RFC 7591) is open, but only to clients that keep to OAuth 2.1 and
 * RFC 9700: each unsafe piece of metadata is refused with the RFC 7591 error and a reason, and
 * nothing of a refused client is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { register } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('registration', () => {
  test.each([
    ['an https redirect', { redirect_uris: ['https://agent.example/callback'] }],
    [
      'a loopback http redirect',
      { redirect_uris: ['http://127.0.0.1:8976/callback', 'http://[::1]:8976/cb'] },
    ],
    ['localhost', { redirect_uris: ['http://localhost:33418/callback'] }],
    ['a native app', { application_type: 'native', redirect_uris: ['http://127.0.0.1/callback'] }],
    ['no grant_types (defaults to code and refresh)', { grant_types: undefined }],
    ['no auth method (defaults to none)', { token_endpoint_auth_method: undefined }],
    ['API scopes', { scope: 'read services:github:read openid' }],
  ])('accepts %s', async (_name, metadata) => {
    const response = await register(t.url, metadata);
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_endpoint_auth_method: 'none', response_types: ['code'] });
    expect(body).not.toHaveProperty('client_secret');
    expect(body).not.toHaveProperty('registration_access_token');
    const stored = await t.db.oidcPayload.findMany({
      where: { model: 'Client', clientId: String(body.client_id) },
    });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored[0]?.payload)).not.toContain('client_secret');
  });

  test.each([
    [
      'an http redirect to a remote host',
      { redirect_uris: ['http://agent.example/callback'] },
      'invalid_redirect_uri',
    ],
    ['a wildcard redirect', { redirect_uris: ['https://*.agent.example/callback'] }, 'invalid_redirect_uri'],
    ['a wildcard path', { redirect_uris: ['https://agent.example/*'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://agent.example/callback#x'] }, 'invalid_redirect_uri'],
    [
      'credentials in the redirect',
      { redirect_uris: ['https://user:pw@agent.example/cb'] },
      'invalid_redirect_uri',
    ],
    ['a custom scheme', { redirect_uris: ['com.example.agent:/callback'] }, 'invalid_redirect_uri'],
    ['javascript:', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['no redirect', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['client_credentials', { grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    ['implicit', { grant_types: ['implicit'], response_types: ['token'] }, 'invalid_client_metadata'],
    ['a hybrid response type', { response_types: ['code id_token'] }, 'invalid_client_metadata'],
    [
      'a confidential client',
      { token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      'private_key_jwt',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://a.example/jwks' },
      'invalid_client_metadata',
    ],
    ['a jwks_uri', { jwks_uri: 'https://agent.example/jwks' }, 'invalid_client_metadata'],
    [
      'a sector_identifier_uri',
      { sector_identifier_uri: 'https://agent.example/sector' },
      'invalid_client_metadata',
    ],
    ['an http logo', { logo_uri: 'http://agent.example/logo.png' }, 'invalid_client_metadata'],
    ['an unknown scope', { scope: 'read everything' }, 'invalid_client_metadata'],
    ['a huge name', { client_name: 'x'.repeat(500) }, 'invalid_client_metadata'],
    ['a name with a line break', { client_name: 'Agent\nApproved by admin' }, 'invalid_client_metadata'],
    ['a name with an escape sequence', { client_name: 'Agent\u001b[2K' }, 'invalid_client_metadata'],
    ['a name with a bidi override', { client_name: 'Agent \u202egnp.exe' }, 'invalid_client_metadata'],
  ])('refuses %s', async (_name, metadata, error) => {
    const before = await t.db.oidcPayload.count({ where: { model: 'Client' } });
    const response = await register(t.url, metadata);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe(error);
    expect(body.error_description).toEqual(expect.any(String));
    expect(await t.db.oidcPayload.count({ where: { model: 'Client' } })).toBe(before);
  });
});
