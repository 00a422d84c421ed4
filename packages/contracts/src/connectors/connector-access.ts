/**
 * Whether a call through the proxy reads or writes, decided by the connector it goes to. The
 * gateway (before it counts usage) and the proxy service (before it forwards) both ask here, so
 * they need the same scope; the rest of a connector (base URL, credential placement) stays with
 * the proxy service.
 *
 * The rules, safest first:
 * - Only GET and HEAD can be reads. Every other method is a write, whatever the connector.
 * - A REST connector (`style: 'rest'`): GET and HEAD are reads.
 * - An RPC connector (`style: 'rpc'`, e.g. Slack's Web API, which takes any method's arguments
 *   from a GET query): the rest of the path names the method, and only the methods listed in
 *   `readMethods`, matched exactly as sent, are reads; any other name is a write.
 * - A service that is not in this table: GET and HEAD are reads. The proxy forwards nothing to a
 *   name outside its catalogue (404), and the catalogue's names are checked against this table.
 *
 * `overrideParameters` are query parameters by which the connector's API (or one we cannot rule
 * out) lets a GET act as another method; the proxy refuses them (400). Headers of that kind are
 * never forwarded to any connector (the proxy's header policy).
 */

export type Access = 'read' | 'write';

interface ConnectorAccessBase {
  /** What a token with read access (`read`, `services:read`, `services:{name}:read`) may do. */
  readonly readAccess: string;
  /** Query parameters that would override the method, compared without case; refused. */
  readonly overrideParameters: readonly string[];
}

export interface RestConnectorAccess extends ConnectorAccessBase {
  readonly style: 'rest';
}

export interface RpcConnectorAccess extends ConnectorAccessBase {
  readonly style: 'rpc';
  /** The methods that only read, by their exact name. */
  readonly readMethods: ReadonlySet<string>;
}

export type ConnectorAccess = RestConnectorAccess | RpcConnectorAccess;

// Rack (Ruby), Express's method-override, Symfony, Laravel and others take `_method`; unsure
// whether GitHub, Notion, Stripe or Figma do, so they are refused everywhere but Slack, where
// the method cannot change what a call does.
const METHOD_OVERRIDES = ['_method', 'x-http-method-override', 'x-http-method', 'x-method-override'];

const REST_READ = 'GET and HEAD requests only: reading';

export const ConnectorAccessTable = {
  github: {
    style: 'rest',
    readAccess: `${REST_READ} repositories, issues, pull requests, users, gists and notifications. GraphQL (POST /graphql) needs write.`,
    overrideParameters: METHOD_OVERRIDES,
  },
  'google-calendar': {
    style: 'rest',
    readAccess: `${REST_READ} calendars, calendar lists, events and colors. The free/busy query (POST /freeBusy) needs write.`,
    // Google's APIs take the method from X-HTTP-Method-Override and from `$httpMethod` as well.
    overrideParameters: [...METHOD_OVERRIDES, '$httpmethod'],
  },
  slack: {
    style: 'rpc',
    readAccess:
      'GET or HEAD of the listed read methods only (conversations.list, conversations.history, users.info and other list, info, get and search methods); any other method, such as chat.postMessage or chat.delete, needs write, whatever the HTTP method.',
    overrideParameters: [],
    readMethods: new Set([
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
    ]),
  },
  notion: {
    style: 'rest',
    readAccess: `${REST_READ} pages, blocks, databases, users and comments by id. Search and database queries (POST) need write.`,
    overrideParameters: METHOD_OVERRIDES,
  },
  stripe: {
    style: 'rest',
    readAccess: `${REST_READ} customers, charges, invoices, payment intents, subscriptions and the balance (Stripe's list and search endpoints are GET).`,
    overrideParameters: METHOD_OVERRIDES,
  },
  figma: {
    style: 'rest',
    readAccess: `${REST_READ} the user, files, images, teams and projects.`,
    overrideParameters: METHOD_OVERRIDES,
  },
} as const satisfies Record<string, ConnectorAccess>;

export type ConnectorName = keyof typeof ConnectorAccessTable;

export const CONNECTOR_NAMES = Object.keys(ConnectorAccessTable) as ConnectorName[];

export function connectorAccess(service: string): ConnectorAccess | undefined {
  return Object.hasOwn(ConnectorAccessTable, service)
    ? ConnectorAccessTable[service as ConnectorName]
    : undefined;
}

/**
 * Whether a call reads or writes: `restOfPath` is the forwarded path after the service name,
 * still percent-encoded (as the proxy sends it), without the query.
 */
export function accessOf(service: string, method: string, restOfPath: string): Access {
  if (method !== 'GET' && method !== 'HEAD') return 'write';
  const connector = connectorAccess(service);
  if (connector === undefined || connector.style === 'rest') return 'read';
  return connector.readMethods.has(restOfPath) ? 'read' : 'write';
}

/** The first query parameter by which the call would override its method, or null. */
export function methodOverrideIn(service: string, query: string): string | null {
  const names = connectorAccess(service)?.overrideParameters ?? METHOD_OVERRIDES;
  if (names.length === 0 || query === '') return null;
  for (const name of new URLSearchParams(query).keys()) {
    if (names.includes(name.trim().toLowerCase())) return name;
  }
  return null;
}
