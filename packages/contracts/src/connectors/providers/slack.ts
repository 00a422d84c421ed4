/**
 * Slack, as the owner (a user token). Checked against api.slack.com/authentication/oauth-v2,
 * docs.slack.dev/reference/methods/oauth.v2.access (client credentials preferably by HTTP Basic),
 * docs.slack.dev/authentication/using-token-rotation and api.slack.com/methods/auth.revoke.
 * The owner's own token is asked for by `user_scope` (scopes joined by commas) and answered in
 * `authed_user` (the top level holds a bot token, which is not asked for); its refresh answers at
 * the top level. With token rotation on, the token lives 12 hours and the refresh token rotates;
 * auth.revoke takes the token itself. search.* and users.identity work with a user token only.
 */
import { defineProvider } from '../provider-definition.ts';

export const slack = defineProvider({
  name: 'slack',
  displayName: 'Slack',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://slack.com/oauth/v2/authorize',
    tokenUrl: 'https://slack.com/api/oauth.v2.access',
    clientAuth: 'client_secret_basic',
    pkce: false,
    defaultScopes: ['channels:read', 'channels:history', 'users:read', 'users.profile:read'],
    scopeSeparator: ',',
    scopeParameter: 'user_scope',
    tokenAnswerMember: 'authed_user',
    refreshTokens: 'rotating',
    revocation: { url: 'https://slack.com/api/auth.revoke', style: 'bearer' },
  },
  api: {
    baseUrl: 'https://slack.com/api',
    allowedHosts: ['slack.com'],
    credential: { type: 'bearer' },
  },
  // Slack's methods (conversations.list, chat.postMessage) are not scope names; only the owner's
  // own profile has a sub-scope (professional).
  resources: ['profile'],
  access: {
    style: 'rpc',
    readAccess:
      'GET or HEAD of the listed read methods only (conversations.list, conversations.history, users.info and other list, info, get and search methods); any other method, such as chat.postMessage or chat.delete, needs write, whatever the HTTP method.',
    overrideParameters: [],
    readMethods: [
      'api.test',
      'auth.test',
      'bookmarks.list',
      'bots.info',
      'chat.getPermalink',
      'chat.scheduledMessages.list',
      'conversations.history',
      'conversations.info',
      'conversations.list',
      'conversations.members',
      'conversations.replies',
      'dnd.info',
      'dnd.teamInfo',
      'emoji.list',
      'files.info',
      'files.list',
      'pins.list',
      'reactions.get',
      'reactions.list',
      'reminders.info',
      'reminders.list',
      'search.all',
      'search.files',
      'search.messages',
      'stars.list',
      'team.info',
      'team.profile.get',
      'usergroups.list',
      'usergroups.users.list',
      'users.conversations',
      'users.getPresence',
      'users.identity',
      'users.info',
      'users.list',
      'users.lookupByEmail',
      'users.profile.get',
    ],
    operations: [
      { method: 'GET', path: 'users.profile.get', access: 'read', resource: 'profile' },
      { method: 'HEAD', path: 'users.profile.get', access: 'read', resource: 'profile' },
    ],
  },
});
