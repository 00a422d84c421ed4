/** GitHub (OAuth app; docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps). An OAuth app's token does not expire and has no refresh token; GitHub's revocation (DELETE /applications/{client_id}/grant) is not RFC 7009, so the owner revokes in GitHub's settings. */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const github = defineProvider({
  name: 'github',
  displayName: 'GitHub',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['read:user', 'repo'],
    refreshTokens: 'none',
    revocation: null,
  },
  api: {
    baseUrl: 'https://api.github.com',
    allowedHosts: ['api.github.com'],
    credential: { type: 'bearer' },
    // GitHub refuses requests without a User-Agent.
    defaultHeaders: { 'user-agent': 'personal-api-gateway', accept: 'application/vnd.github+json' },
  },
  resources: ['user', 'users', 'repos', 'issues', 'notifications', 'gists', 'orgs', 'search'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} repositories, issues, pull requests, users, gists and notifications. GraphQL (POST /graphql) needs write.`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
