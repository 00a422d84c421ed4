/**
 * Notion, as a public integration. Checked against developers.notion.com/docs/authorization,
 * developers.notion.com/reference/create-a-token, /reference/refresh-a-token and
 * /reference/revoke-token: the token and revocation endpoints take Basic client authentication
 * and a JSON body (not a form); a code exchange answers a refresh token, and each refresh answers
 * a new one (the old one dies); no PKCE. The API needs a Notion-Version header; 2022-06-28 stays
 * the default (newer versions replace databases by data sources; a caller may send its own).
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const notion = defineProvider({
  name: 'notion',
  displayName: 'Notion',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://api.notion.com/v1/oauth/authorize',
    tokenUrl: 'https://api.notion.com/v1/oauth/token',
    clientAuth: 'client_secret_basic',
    pkce: false,
    defaultScopes: [],
    authorizationParams: { owner: 'user' },
    tokenRequestFormat: 'json',
    refreshTokens: 'rotating',
    revocation: { url: 'https://api.notion.com/v1/oauth/revoke', style: 'rfc7009' },
  },
  api: {
    baseUrl: 'https://api.notion.com/v1',
    allowedHosts: ['api.notion.com'],
    credential: { type: 'bearer' },
    // Notion answers 400 without a version header.
    defaultHeaders: { 'notion-version': '2022-06-28' },
  },
  resources: ['pages', 'databases', 'data_sources', 'blocks', 'search', 'users', 'comments'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} pages, blocks, databases, data sources, users and comments by id; and the search and the database and data source queries (POST /search, /databases/{id}/query, /data_sources/{id}/query).`,
    overrideParameters: METHOD_OVERRIDES,
    // Notion's search and queries are POSTs that only read (their filters travel in the body).
    operations: [
      { method: 'POST', path: 'search', access: 'read', resource: 'search' },
      { method: 'POST', path: 'databases/{id}/query', access: 'read', resource: 'databases' },
      { method: 'POST', path: 'data_sources/{id}/query', access: 'read', resource: 'data_sources' },
    ],
  },
});
