/**
 * What a client may register for itself (RFC 7591, open registration), after oidc-provider's own
 * schema checks. RFC 9700 and OAuth 2.1 for clients nobody vetted:
 * - public clients only (token_endpoint_auth_method `none`): no shared secret rests anywhere, PKCE
 *   protects the code;
 * - the code flow only (grant types authorization_code and refresh_token, response type `code`);
 * - redirect URIs exact and safe: https, or http on a loopback host (a native app's local
 *   listener, matched with any port: loopback-redirects.ts), or, for application_type `native`
 *   only, a private-use scheme (RFC 8252 §7.1: `com.example.app:/cb`, `cursor://…`) that is not
 *   a scheme a browser or the system gives another meaning; no wildcards, no fragments, no
 *   credentials in the URI;
 * - nothing that would make this server fetch a URL the client chose (jwks_uri,
 *   sector_identifier_uri, request_uris) or call one (backchannel logout);
 * - informational URLs https only; scopes from our grammar only (prepareRegistration).
 * Violations are invalid_redirect_uri or invalid_client_metadata, with the rule in the description.
 *
 * It runs where oidc-provider stores a registered client (panva's advice for registration
 * policies without an initial access token): static clients are never stored, so never checked.
 */
import { isCleanName, isScope, NAME_CHARACTERS_MESSAGE } from '@pag/contracts';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { OIDC_SCOPES } from './scopes.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const ALLOWED_GRANTS = new Set(['authorization_code', 'refresh_token']);
const FORBIDDEN = ['jwks_uri', 'jwks', 'sector_identifier_uri', 'request_uris', 'backchannel_logout_uri'];
const INFORMATIONAL_URIS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'initiate_login_uri'];
const MAX_NAME_LENGTH = 200;
/** Schemes that are not an app's own: the web's, the browser's, the system's. */
const NOT_PRIVATE_USE = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'filesystem:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
  'sms:',
]);

function fail(message: string): never {
  throw new errors.InvalidClientMetadata(message);
}

function checkRedirectUri(value: unknown, label: string, native: boolean): void {
  const bad = (why: string): never => {
    // InvalidRedirectUri's constructor takes no description (it would keep its "did not match"
    // text, which is about authorization requests): the rule is set on the error itself.
    const error = new errors.InvalidRedirectUri();
    error.error_description = `${label}: ${why}`;
    throw error;
  };
  if (typeof value !== 'string') bad('must be strings');
  const uri = value as string;
  if (uri.includes('*')) bad('wildcards are not allowed; register each URI exactly');
  const url = URL.parse(uri);
  if (url === null) bad('must be absolute URIs');
  const parsed = url as URL;
  if (uri.includes('#')) bad('must not contain a fragment');
  if (parsed.username !== '' || parsed.password !== '') bad('must not contain credentials');
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return;
  if (parsed.protocol === 'http:')
    bad('must use https, or http on a loopback host (127.0.0.1, [::1], localhost)');
  if (NOT_PRIVATE_USE.has(parsed.protocol)) bad(`must not use the ${parsed.protocol} scheme`);
  if (!native)
    bad(
      `a private-use scheme (${parsed.protocol}) is for native apps: register with application_type "native", or use https or http on a loopback host`,
    );
}

/** Throws oidc-provider's registration errors when the stored metadata breaks a rule above. */
export function checkRegistration(metadata: AdapterPayload): void {
  if (metadata.token_endpoint_auth_method !== 'none') {
    fail('token_endpoint_auth_method must be none: only public clients may register (they use PKCE)');
  }
  const grants = metadata.grant_types ?? [];
  if (!grants.includes('authorization_code') || grants.some((grant) => !ALLOWED_GRANTS.has(grant))) {
    fail('grant_types must be authorization_code, optionally with refresh_token');
  }
  const responses = metadata.response_types ?? [];
  if (responses.length !== 1 || responses[0] !== 'code') fail('response_types must be ["code"]');
  const redirects = metadata.redirect_uris ?? [];
  if (redirects.length === 0) fail('redirect_uris must name at least one URI');
  const native = metadata.application_type === 'native';
  for (const uri of redirects) checkRedirectUri(uri, 'redirect_uris', native);
  for (const uri of metadata.post_logout_redirect_uris ?? [])
    checkRedirectUri(uri, 'post_logout_redirect_uris', native);
  const record = metadata as Record<string, unknown>;
  for (const key of FORBIDDEN) {
    if (record[key] !== undefined) fail(`${key} is not accepted from self-registered clients`);
  }
  for (const key of INFORMATIONAL_URIS) {
    const value = record[key];
    if (value !== undefined && (typeof value !== 'string' || URL.parse(value)?.protocol !== 'https:')) {
      fail(`${key} must be an https URI`);
    }
  }
  if (typeof metadata.client_name === 'string' && metadata.client_name.length > MAX_NAME_LENGTH) {
    fail(`client_name must be at most ${MAX_NAME_LENGTH} characters`);
  }
  // The client's name becomes the name of the owner's agent: the same rule as every agent name.
  if (typeof metadata.client_name === 'string' && !isCleanName(metadata.client_name)) {
    fail(`client_name ${NAME_CHARACTERS_MESSAGE}`);
  }
}

/**
 * The registration request as oidc-provider should read it, run from features.registration's
 * idFactory (the one hook that sees the request before oidc-provider reads it):
 * - an omitted token_endpoint_auth_method means `none` here (RFC 7591 lets the server choose);
 *   oidc-provider decides whether to mint a client secret from the raw request, before its
 *   clientDefaults apply, and would otherwise make (and store) a secret nobody uses;
 * - `scope` must be in our grammar, and is then not kept: oidc-provider checks it against its
 *   OpenID scopes only, and a client's token requests are checked against the grammar anyway.
 */
export function prepareRegistration(body: Record<string, unknown> | undefined): void {
  if (body === undefined) return;
  body.token_endpoint_auth_method ??= 'none';
  // Our rules first, so their words (e.g. "register with application_type native") are the answer.
  const native = body.application_type === 'native';
  for (const key of ['redirect_uris', 'post_logout_redirect_uris']) {
    const uris = body[key];
    if (Array.isArray(uris)) for (const uri of uris) checkRedirectUri(uri, key, native);
  }
  // Before oidc-provider reads them: a sector_identifier_uri would otherwise be fetched first.
  for (const key of FORBIDDEN) {
    if (body[key] !== undefined) fail(`${key} is not accepted from self-registered clients`);
  }
  if (body.scope === undefined) return;
  if (typeof body.scope !== 'string') fail('scope must be a string of space-separated scopes');
  const unknown = (body.scope as string)
    .split(' ')
    .find((scope) => scope !== '' && !(OIDC_SCOPES as readonly string[]).includes(scope) && !isScope(scope));
  if (unknown !== undefined) fail(`scope contains "${unknown}", which this server does not support`);
  delete body.scope;
}

/** The adapter factory with the policy in front of every stored Client. */
export function withRegistrationPolicy(factory: AdapterFactory): AdapterFactory {
  return (model) => {
    const adapter = factory(model);
    if (model !== 'Client') return adapter;
    const guarded: Adapter = {
      upsert: async (id, payload, expiresIn) => {
        checkRegistration(payload);
        await adapter.upsert(id, payload, expiresIn);
      },
      find: (id) => adapter.find(id),
      findByUid: (uid) => adapter.findByUid(uid),
      findByUserCode: (userCode) => adapter.findByUserCode(userCode),
      consume: (id) => adapter.consume(id),
      destroy: (id) => adapter.destroy(id),
      revokeByGrantId: (grantId) => adapter.revokeByGrantId(grantId),
    };
    return guarded;
  };
}
