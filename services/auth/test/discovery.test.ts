/**
 * The discovery documents, read as a client meets them through the gateway: RFC 8414 metadata
 * on both paths with the agent_auth block, RFC 9728 protected-resource metadata on both paths,
 * and /auth.md. PUBLIC_URL differs from the service's own address here, and requests carry a
 * foreign Host and X-Forwarded-Host: every URL must still come from PUBLIC_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  ANONYMOUS_CREDENTIAL_TYPES,
  CREDENTIAL_TYPES,
  IDENTITY_TYPES,
  MCP_CHALLENGE_SCOPES,
  OAuthServerMetadata,
  REGISTRATION_METHODS,
} from '@pag/contracts';
import { z } from 'zod';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const PUBLIC_URL = 'https://gateway.example.test';
const FOREIGN = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };

/** RFC 9728 §2, with the members we promise. */
const ProtectedResourceMetadata = z.looseObject({
  resource: z.url(),
  authorization_servers: z.array(z.url()).min(1),
  scopes_supported: z.array(z.string()).min(1),
  bearer_methods_supported: z.array(z.enum(['header', 'body', 'query'])),
});

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth({ publicUrl: PUBLIC_URL });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const get = (path: string) => fetch(`${t.auth.url}${path}`, { headers: FOREIGN });

describe.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
  '%s',
  (path) => {
    test('validates as OAuthServerMetadata, every URL under PUBLIC_URL', async () => {
      const response = await get(path);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain('evil.example');
      expect(text).not.toContain(t.auth.url);
      const metadata = OAuthServerMetadata.parse(JSON.parse(text));
      expect(metadata).toMatchObject({
        issuer: PUBLIC_URL,
        authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
        token_endpoint: `${PUBLIC_URL}/oauth/token`,
        registration_endpoint: `${PUBLIC_URL}/oauth/register`,
        revocation_endpoint: `${PUBLIC_URL}/oauth/revoke`,
        introspection_endpoint: `${PUBLIC_URL}/oauth/introspect`,
        jwks_uri: `${PUBLIC_URL}/oauth/jwks`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
      // The JWT bearer grant is for approved Ed25519 devices only (registration refuses it).
      expect([...(metadata.grant_types_supported ?? [])].sort()).toEqual([
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ]);
      expect(metadata.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'full', 'read', 'services:read']),
      );
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
    });

    test('carries every field and enumeration of the agent_auth block', async () => {
      const metadata = (await (await get(path)).json()) as OAuthServerMetadata;
      expect(metadata.agent_auth).toEqual({
        skill: `${PUBLIC_URL}/auth.md`,
        register_uri: `${PUBLIC_URL}/signup`,
        identity_endpoint: `${PUBLIC_URL}/api/v1/agentic/asc/register`,
        claim_uri: `${PUBLIC_URL}/dashboard/devices`,
        claim_endpoint: `${PUBLIC_URL}/dashboard/devices/claim`,
        identity_types_supported: [...IDENTITY_TYPES],
        anonymous: { credential_types_supported: [...ANONYMOUS_CREDENTIAL_TYPES] },
        credential_types_supported: [...CREDENTIAL_TYPES],
        registration_methods: [...REGISTRATION_METHODS],
        revocation_uri: `${PUBLIC_URL}/dashboard/tokens`,
      });
      expect(IDENTITY_TYPES).toEqual(['user_delegated', 'agent', 'anonymous']);
      expect(CREDENTIAL_TYPES).toEqual(['oauth2_authorization_code', 'bearer_token', 'ed25519_keypair']);
      expect(REGISTRATION_METHODS).toEqual([
        'oauth2_authorization_code',
        'dashboard_token',
        'asc_device_key',
      ]);
      expect(ANONYMOUS_CREDENTIAL_TYPES).toEqual(['ed25519_keypair', 'bearer_token']);
    });
  },
);

describe.each([
  ['/.well-known/oauth-protected-resource', `${PUBLIC_URL}/`, 'mcp'],
  ['/.well-known/oauth-protected-resource/mcp', `${PUBLIC_URL}/mcp`, 'mcp'],
  ['/.well-known/oauth-protected-resource/api/v1', `${PUBLIC_URL}/api/v1`, 'api'],
])('%s', (path, resource, listing) => {
  test('is RFC 9728 metadata of its identifier of the gateway, naming this server', async () => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const metadata = ProtectedResourceMetadata.parse(await response.json());
    expect(metadata).toMatchObject({
      resource,
      authorization_servers: [PUBLIC_URL],
      bearer_methods_supported: ['header'],
    });
    if (listing === 'api') {
      expect(metadata.scopes_supported).toEqual(
        expect.arrayContaining(['full', 'read', 'chat', 'knowledge']),
      );
    } else {
      // An MCP client given the base URL or /mcp asks for scopes_supported as a whole when no
      // challenge named a scope: only the MCP scopes, never `full`.
      expect(metadata.scopes_supported).toEqual([...MCP_CHALLENGE_SCOPES]);
    }
  });
});

describe('/auth.md', () => {
  test('covers every route of the Authentication section with examples under PUBLIC_URL', async () => {
    const response = await get('/auth.md');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/markdown/);
    const guide = await response.text();
    expect(guide).not.toContain('evil.example');
    for (const expected of [
      'Authorization: Bearer',
      `${PUBLIC_URL}/.well-known/oauth-authorization-server`,
      `${PUBLIC_URL}/oauth/register`,
      `${PUBLIC_URL}/oauth/authorize`,
      'code_challenge_method=S256',
      `${PUBLIC_URL}/oauth/token`,
      'grant_type=refresh_token',
      `${PUBLIC_URL}/oauth/revoke`,
      `${PUBLIC_URL}/dashboard/tokens`,
      `${PUBLIC_URL}/api/v1/agentic/asc/register`,
      `${PUBLIC_URL}/dashboard/devices`,
      `${PUBLIC_URL}/signup`,
      `${PUBLIC_URL}/api/v1/handshakes`,
      'services:{name}:read',
    ]) {
      expect(guide).toContain(expected);
    }
    expect(guide.match(/```sh/g)?.length).toBeGreaterThanOrEqual(8);
  });

  test('describes both ways a handshake token reaches the agent: pickup with the proof, and the owner', async () => {
    const guide = await (await get('/auth.md')).text();
    for (const expected of [
      '"codeChallenge": "\'"$CHALLENGE"\'", "codeChallengeMethod": "S256"',
      'curl -H "Handshake-Verifier: $VERIFIER"',
      '"tokenDelivery": "pickup"',
      '"tokenCollected": true',
      '**owner**: without a `codeChallenge`, the owner is shown the token once',
      'HANDSHAKE_PROOF_MISMATCH',
      'every `interval` seconds',
    ]) {
      expect(guide).toContain(expected);
    }
  });
});
