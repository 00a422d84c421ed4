/**
 * Response bodies of the public discovery documents: the index (`GET /api/v1/`), the quick-start
 * guide, the public capabilities summary and the OAuth discovery metadata with its agent_auth
 * block. Every URL in them comes from PUBLIC_URL, never from the Host header.
 */
import { z } from 'zod';
import { AGENT_CONDUCT_RULE } from '../api.ts';

const Important = z
  .string()
  .describe('The agent conduct rule; applies to every request.')
  .meta({
    examples: [AGENT_CONDUCT_RULE],
  });

export const DiscoveryIndex = z
  .object({
    name: z.string().meta({ examples: ['Personal API Gateway'] }),
    version: z
      .string()
      .regex(/^\d+(\.\d+)*$/)
      .describe('Version of the interface, dotted numbers.')
      .meta({ examples: ['1.0.0'] }),
    important: Important,
    description: z.string(),
    documentation: z.object({
      openapi: z.string().meta({ examples: ['/openapi.json'] }),
      quickStart: z.string().meta({ examples: ['/api/v1/quick-start'] }),
      llms: z.string().meta({ examples: ['/llms.txt'] }),
    }),
    authentication: z.object({
      type: z.literal('Bearer'),
      header: z.string().meta({ examples: ['Authorization: Bearer <ACCESS_TOKEN>'] }),
      hint: z.string(),
    }),
    endpoints: z
      .record(z.string(), z.string())
      .describe('Short name (the operationId) to "METHOD path".')
      .meta({ examples: [{ quickStart: 'GET /api/v1/quick-start', chat: 'POST /api/v1/brain/chat' }] }),
  })
  .describe('The discovery index: what this gateway is and where everything is.');
export type DiscoveryIndex = z.infer<typeof DiscoveryIndex>;

const QuickStartStep = z
  .object({
    title: z.string(),
    request: z.string().optional().describe('The call to make, "METHOD path", when the step is one call.'),
    detail: z.string(),
  })
  .describe('One step of the guide.');

export const QuickStart = z
  .object({
    title: z.string(),
    important: Important,
    authenticated: z.literal(false),
    canonicalBaseUrl: z.url().meta({ examples: ['https://gateway.example.com'] }),
    urlWarning: z
      .string()
      .describe('Use the base URL exactly, do not follow redirects, do not append /api/v1.'),
    prerequisite: z.string(),
    noTokenFlow: z
      .object({ summary: z.string(), steps: z.array(z.string()) })
      .describe('What to do without a usable token: the handshake flow.'),
    steps: z.array(QuickStartStep),
    fullDocs: z
      .string()
      .describe('Where the full description lives.')
      .meta({ examples: ['/openapi.json'] }),
  })
  .describe('The quick-start guide for agents; served without authentication.');
export type QuickStart = z.infer<typeof QuickStart>;

export const PublicCapabilities = z
  .object({
    name: z.string(),
    version: z.string(),
    features: z.array(z.object({ id: z.string(), summary: z.string(), endpoint: z.string() })),
    scopes: z.array(z.object({ scope: z.string(), description: z.string() })),
    registrationMethods: z.array(z.string()),
    identityTypes: z.array(z.string()),
    credentialTypes: z.array(z.string()),
    limits: z
      .array(z.object({ kind: z.string(), description: z.string() }))
      .describe('The kinds of limits a request may meet (their values are per agent or per deployment).'),
  })
  .describe(
    'What this gateway offers, before any token: features, scopes, how to register and the kinds of limits. Public.',
  );
export type PublicCapabilities = z.infer<typeof PublicCapabilities>;

export const IDENTITY_TYPES = ['user_delegated', 'agent', 'anonymous'] as const;
export const CREDENTIAL_TYPES = ['oauth2_authorization_code', 'bearer_token', 'ed25519_keypair'] as const;
export const REGISTRATION_METHODS = [
  'oauth2_authorization_code',
  'dashboard_token',
  'asc_device_key',
] as const;
export const ANONYMOUS_CREDENTIAL_TYPES = ['ed25519_keypair', 'bearer_token'] as const;

export const AgentAuthBlock = z
  .object({
    skill: z.url(),
    register_uri: z.url(),
    identity_endpoint: z.url(),
    claim_uri: z.url(),
    claim_endpoint: z.url(),
    identity_types_supported: z.array(z.enum(IDENTITY_TYPES)),
    anonymous: z.object({ credential_types_supported: z.array(z.enum(ANONYMOUS_CREDENTIAL_TYPES)) }),
    credential_types_supported: z.array(z.enum(CREDENTIAL_TYPES)),
    registration_methods: z.array(z.enum(REGISTRATION_METHODS)),
    revocation_uri: z.url(),
  })
  .describe('How an agent registers itself; also served inside the OAuth discovery metadata.');
export type AgentAuthBlock = z.infer<typeof AgentAuthBlock>;

export const OAuthServerMetadata = z
  .looseObject({
    issuer: z.url(),
    authorization_endpoint: z.url(),
    token_endpoint: z.url(),
    registration_endpoint: z.url().optional(),
    revocation_endpoint: z.url().optional(),
    introspection_endpoint: z.url().optional(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()).optional(),
    code_challenge_methods_supported: z.array(z.literal('S256')),
    agent_auth: AgentAuthBlock,
  })
  .describe(
    'OAuth 2.0 authorization server metadata (RFC 8414) with the agent_auth block; further RFC 8414 fields may appear.',
  );
export type OAuthServerMetadata = z.infer<typeof OAuthServerMetadata>;
