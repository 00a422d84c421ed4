/**
 * Google's one OAuth 2.0 server, shared by every Google API connector. Checked against
 * developers.google.com/identity/protocols/oauth2/web-server (authorization, token and
 * revocation endpoints, PKCE, client_secret in the body): a refresh token only with
 * access_type=offline, and again on a reconnect only with prompt=consent; it does not rotate.
 * The revocation endpoint takes the token in a form; revoking the refresh token ends the grant.
 */
export function googleOAuth(defaultScopes: string[]) {
  return {
    type: 'oauth2',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes,
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    refreshTokens: 'static',
    revocation: { url: 'https://oauth2.googleapis.com/revoke', style: 'rfc7009' },
  } as const;
}
