/**
 * Google's one OAuth 2.0 server, shared by every Google API connector
 * (developers.google.com/identity/protocols/oauth2/web-server): a refresh token only with
 * access_type=offline (prompt=consent gets one again on reconnect); it does not rotate.
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
