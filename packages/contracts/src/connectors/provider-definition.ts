/**
 * What a connector is, declared once per provider (providers/<name>.ts) and validated by this
 * schema when the module loads, so a mistake in a definition stops the process at start-up, not
 * at the first call: how the owner connects it (OAuth 2.0 authorization code with its URLs, client
 * authentication, PKCE and refresh behaviour, or an API key pasted in a form), where its API is
 * and how the credential travels there, and which of its operations read and which write.
 *
 * The same schema validates a connector the deployment configures entirely (CONNECTOR_CUSTOM at
 * the proxy): every URL must be https, except loopback when the caller allows it (tests).
 */
import { z } from 'zod';
import { SCOPE_NAME_PATTERN } from '../scopes/scope-grammar.ts';

const Name = z.string().regex(SCOPE_NAME_PATTERN, 'a scope name: lowercase letters, digits, "_" and "-"');

/** Loopback hosts, allowed over http only where the caller says so (tests). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

function endpointUrl(allowLoopback: boolean) {
  return z.url().refine(
    (value) => {
      const url = new URL(value);
      if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
      return (
        url.protocol === 'https:' ||
        (allowLoopback && url.protocol === 'http:' && isLoopbackHost(url.hostname))
      );
    },
    allowLoopback
      ? 'must be an https URL (or http on loopback)'
      : 'must be an https URL without credentials or fragment',
  );
}

/** How the decrypted credential is put on the outgoing request. */
const CredentialPlacement = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer') }),
  z.object({ type: z.literal('header'), name: z.string().regex(/^[a-z0-9-]+$/, 'a lowercase header name') }),
]);

/**
 * One operation whose access or resource is not what its method and first path segment say:
 * e.g. Google Calendar's `POST freeBusy` only reads (resource `freebusy`), Microsoft Graph's
 * `GET me` is the profile (resource `profile`). `path` is the rest of the path as sent, exactly,
 * but that a `{id}` segment stands for one identifier segment (Notion's `databases/{id}/query`).
 */
const Operation = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  path: z.string().min(1),
  access: z.enum(['read', 'write']),
  resource: Name.nullable(),
});

const AccessRules = z.discriminatedUnion('style', [
  z.object({
    /** REST: GET and HEAD read, every other method writes (but for the listed operations). */
    style: z.literal('rest'),
    readAccess: z.string().min(1),
    overrideParameters: z.array(z.string()),
    operations: z.array(Operation).default([]),
  }),
  z.object({
    /** RPC (Slack's Web API): the path names the method; only `readMethods` read, by GET or HEAD. */
    style: z.literal('rpc'),
    readAccess: z.string().min(1),
    overrideParameters: z.array(z.string()),
    readMethods: z.array(z.string().min(1)).min(1),
    operations: z.array(Operation).default([]),
  }),
]);

function oauth2Auth(allowLoopback: boolean) {
  const url = endpointUrl(allowLoopback);
  return z.object({
    type: z.literal('oauth2'),
    authorizationUrl: url,
    tokenUrl: url,
    /** How the client authenticates at the token (and revocation) endpoint. */
    clientAuth: z.enum(['client_secret_basic', 'client_secret_post']),
    /** Whether the provider takes a PKCE S256 code_challenge (then it is always sent). */
    pkce: z.boolean(),
    defaultScopes: z.array(z.string().min(1)),
    /** How scopes are joined in the authorization request (RFC 6749: a space; some use a comma). */
    scopeSeparator: z.enum([' ', ',']).default(' '),
    /** Extra authorization parameters the provider needs for a refresh token (access_type=offline, …). */
    authorizationParams: z.record(z.string(), z.string()).default({}),
    /** The authorization parameter that carries the scopes (Slack's user token: `user_scope`). */
    scopeParameter: z.enum(['scope', 'user_scope']).default('scope'),
    /**
     * How the token and revocation endpoints take their parameters: RFC 6749's form encoding, or
     * a JSON object (Notion's endpoints take JSON only).
     */
    tokenRequestFormat: z.enum(['form', 'json']).default('form'),
    /**
     * Where the tokens are when the answer has no top-level access_token: the member of the answer
     * that holds them (Slack's code exchange for a user token answers them in `authed_user`).
     */
    tokenAnswerMember: z
      .string()
      .regex(/^[a-z_]+$/)
      .nullable()
      .default(null),
    /**
     * `none`: no refresh tokens (access tokens live until revoked); `static`: the refresh token
     * stays the same; `rotating`: each refresh may answer a new one (the old one then dies).
     * Either way an answer without a refresh token keeps the stored one.
     */
    refreshTokens: z.enum(['none', 'static', 'rotating']),
    /**
     * RFC 7009 (`token` in a form, client authentication) or `bearer` (the token itself is the
     * credential of a POST, as Dropbox's and Slack's) or `delete_grant` (a DELETE with Basic client
     * authentication and `{"access_token"}` in a JSON body, `{client_id}` in the URL standing for
     * the client id: GitHub's grant deletion, which ends every token of the grant); null: the
     * provider offers none, the owner removes the grant in the provider's settings.
     */
    revocation: z.object({ url, style: z.enum(['rfc7009', 'bearer', 'delete_grant']) }).nullable(),
  });
}

const ApiKeyAuth = z.object({
  type: z.literal('api_key'),
  /** Where the owner finds the key, shown beside the form. */
  keyHint: z.string().min(1),
});

export function providerSchema(options: { allowLoopback: boolean } = { allowLoopback: false }) {
  return z
    .object({
      name: Name,
      displayName: z.string().min(1).max(100),
      auth: z.discriminatedUnion('type', [oauth2Auth(options.allowLoopback), ApiKeyAuth]),
      api: z.object({
        /** The API root; the forwarded path is appended to it. */
        baseUrl: endpointUrl(options.allowLoopback).transform((value) => value.replace(/\/+$/, '')),
        /** Hosts the credential may be sent to (the base URL's host, always). */
        allowedHosts: z.array(z.string().min(1)).min(1),
        credential: CredentialPlacement,
        /** Headers the API requires, sent when the caller did not send them (e.g. Notion-Version). */
        defaultHeaders: z.record(z.string().regex(/^[a-z0-9-]+$/), z.string()).default({}),
      }),
      /** First path segments (or operations' resources) usable in sub-scopes services:{name}:{resource}:…. */
      resources: z.array(Name),
      access: AccessRules,
    })
    .refine((provider) => provider.api.allowedHosts.includes(new URL(provider.api.baseUrl).host), {
      message: "api.allowedHosts must include the base URL's host",
      path: ['api', 'allowedHosts'],
    })
    .refine(
      (provider) =>
        provider.access.operations.every(
          (op) => op.resource === null || provider.resources.includes(op.resource),
        ),
      { message: 'every operation resource must be listed in resources', path: ['access', 'operations'] },
    );
}

const CatalogueProvider = providerSchema();
export type ProviderDefinition = z.output<typeof CatalogueProvider>;
export type ProviderInput = z.input<typeof CatalogueProvider>;
export type OAuth2Auth = Extract<ProviderDefinition['auth'], { type: 'oauth2' }>;
export type ConnectorOperation = z.output<typeof Operation>;

/** A catalogue provider, validated when its module loads; its name stays a literal type. */
export function defineProvider<const N extends string>(
  definition: ProviderInput & { name: N },
): ProviderDefinition & { name: N } {
  const parsed = CatalogueProvider.safeParse(definition);
  if (!parsed.success) {
    throw new Error(`connector ${definition.name}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data as ProviderDefinition & { name: N };
}

/** Rack (Ruby), Express's method-override, Symfony, Laravel and others take `_method`. */
export const METHOD_OVERRIDES = ['_method', 'x-http-method-override', 'x-http-method', 'x-method-override'];

export const REST_READ = 'GET and HEAD requests only: reading';
