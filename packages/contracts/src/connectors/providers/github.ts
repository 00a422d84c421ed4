/**
 * GitHub, as an OAuth app. Checked against docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps,
 * github.blog/changelog/2025-07-14-pkce-support-for-oauth-and-github-app-authentication (PKCE, S256 only),
 * docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization and
 * docs.github.com/en/rest/about-the-rest-api/api-versions. An OAuth app's token does not expire
 * and has no refresh token; disconnecting deletes the grant (every token of it).
 */
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
    revocation: { url: 'https://api.github.com/applications/{client_id}/grant', style: 'delete_grant' },
  },
  api: {
    baseUrl: 'https://api.github.com',
    allowedHosts: ['api.github.com'],
    credential: { type: 'bearer' },
    // GitHub refuses requests without a User-Agent; the API version pins the answers' shape.
    defaultHeaders: {
      'user-agent': 'personal-api-gateway',
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    },
  },
  resources: ['user', 'users', 'repos', 'issues', 'notifications', 'gists', 'orgs', 'search'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} repositories, issues, pull requests, users, gists and notifications. GraphQL (POST /graphql) needs write, queries included: a query and a mutation are both a POST.`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
