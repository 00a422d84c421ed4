/** Notion (developers.notion.com/docs/authorization): client_secret_basic at the token endpoint, no PKCE. */
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
  resources: ['pages', 'databases', 'blocks', 'search', 'users', 'comments'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} pages, blocks, databases, users and comments by id. Search and database queries (POST) need write.`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
