/**
 * Where the auth service's OAuth endpoints live (oidc-provider's `routes`; the gateway forwards
 * /oauth/* and /.well-known/* there). Here in the contracts because the OpenAPI document
 * describes them too: one list, so the document cannot name a path the server does not serve.
 */

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/session/end',
  // Unused flows, given paths under /oauth so nothing lands at oidc-provider's defaults.
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  pushed_authorization_request: '/oauth/par',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The RFC 8414 and OpenID discovery documents (oidc-provider writes both, the same content). */
export const SERVER_METADATA_PATHS = {
  oauth: '/.well-known/oauth-authorization-server',
  openid: '/.well-known/openid-configuration',
} as const;
