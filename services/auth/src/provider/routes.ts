/** Where oidc-provider's endpoints live (the gateway forwards /oauth/* and /.well-known/* here). */
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

/** oidc-provider's own login and consent steps, served by src/interactions. */
export const INTERACTION_PATH = '/interaction';
