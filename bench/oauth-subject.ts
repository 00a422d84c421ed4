/**
 * An OAuth server under load and what the load needs from it: where its endpoints are, the
 * resource server allowed to introspect, and fresh token pairs, each from its own grant so that
 * one connection's refresh chain never touches another's.
 */

export interface TokenPair {
  /** The public client the tokens were issued to (sent with each refresh, as RFC 6749 §6 asks). */
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

export interface IntrospectionCredentials {
  clientId: string;
  clientSecret: string;
}

/** What bench/bare-oidc-server.ts prints on its `bench:` line. */
export interface BareOAuthSetup {
  introspectionClient: IntrospectionCredentials;
}

export interface OAuthSubject {
  /** Base URL: the endpoints are `${url}/oauth/token` and `${url}/oauth/introspect`. */
  url: string;
  introspectionClient: IntrospectionCredentials;
  /** Fresh token pairs, each from its own grant; a load run uses up the refresh tokens it is given. */
  tokens(count: number): Promise<TokenPair[]>;
}
