/**
 * Atlassian Cloud (Jira, Confluence). Checked against developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps
 * and developer.atlassian.com/cloud/oauth/getting-started/implementing-oauth-3lo: audience=api.atlassian.com
 * and prompt=consent on the authorization, scopes joined by spaces, offline_access for a refresh
 * token, which rotates; the client id and secret in the body of the token request. The pages
 * document no PKCE and no revocation endpoint (the owner removes the app in their Atlassian
 * account settings). The API is api.atlassian.com: /me, /oauth/token/accessible-resources, and
 * each site under /ex/{jira|confluence}/{cloudId}.
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const atlassian = defineProvider({
  name: 'atlassian',
  displayName: 'Atlassian (Jira, Confluence)',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    clientAuth: 'client_secret_post',
    pkce: false,
    defaultScopes: ['offline_access', 'read:me', 'read:jira-work', 'read:confluence-content.summary'],
    authorizationParams: { audience: 'api.atlassian.com', prompt: 'consent' },
    refreshTokens: 'rotating',
    revocation: null,
  },
  api: {
    baseUrl: 'https://api.atlassian.com',
    allowedHosts: ['api.atlassian.com'],
    credential: { type: 'bearer' },
  },
  resources: ['me', 'oauth', 'ex'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} the owner (me), accessible sites and, under /ex/{product}/{cloudId}, Jira and Confluence content; and Jira's issue search by JQL (POST /ex/jira/{cloudId}/rest/api/3/search/jql).`,
    overrideParameters: METHOD_OVERRIDES,
    // Jira's issue search by JQL is a POST that only reads (the JQL travels in the body);
    // search/jql replaced search, which some sites still answer.
    operations: [
      { method: 'POST', path: 'ex/jira/{id}/rest/api/3/search/jql', access: 'read', resource: 'ex' },
      { method: 'POST', path: 'ex/jira/{id}/rest/api/3/search', access: 'read', resource: 'ex' },
    ],
  },
});
