/**
 * The connector catalogue: the kinds of third-party service an owner can connect, in code. Each
 * names its real API base URL, how its credential travels (a bearer token or a named header) and
 * its resources: the first path segments that have sub-scopes services:{name}:{resource}:read|write
 * (the contracts' matcher reads the resource from the forwarded path; names outside the scope
 * grammar, such as Slack's `chat.postMessage`, fall back to the service-wide scope).
 *
 * Whether a call reads or writes is not decided here but in the contracts' connector-access table
 * (the gateway needs it too, before it counts usage); every connector here must have an entry
 * there, which its `name` type enforces.
 *
 * Base URLs can be overridden per connector (CONNECTOR_BASE_URLS), so tests and staging point a
 * connector at a local stand-in; everything else about a connector is fixed here.
 */
import type { ConnectorName } from '@pag/contracts';

/** How the decrypted credential is put on the outgoing request. */
export type CredentialPlacement =
  | { readonly type: 'bearer' }
  | { readonly type: 'header'; readonly name: string };

export interface ConnectorDefinition {
  readonly name: ConnectorName;
  readonly displayName: string;
  readonly authType: 'oauth2' | 'api_key';
  /** The API root; the forwarded path is appended to it. */
  readonly baseUrl: string;
  readonly resources: readonly string[];
  readonly credential: CredentialPlacement;
  /** Headers the API requires, sent when the caller did not send them (e.g. Notion-Version). */
  readonly defaultHeaders: Readonly<Record<string, string>>;
}

const BEARER: CredentialPlacement = { type: 'bearer' };

export const CONNECTORS: readonly ConnectorDefinition[] = [
  {
    name: 'github',
    displayName: 'GitHub',
    authType: 'oauth2',
    baseUrl: 'https://api.github.com',
    resources: ['user', 'users', 'repos', 'issues', 'notifications', 'gists', 'orgs', 'search'],
    credential: BEARER,
    // GitHub refuses requests without a User-Agent.
    defaultHeaders: { 'user-agent': 'personal-api-gateway' },
  },
  {
    name: 'google-calendar',
    displayName: 'Google Calendar',
    authType: 'oauth2',
    baseUrl: 'https://www.googleapis.com/calendar/v3',
    resources: ['calendars', 'users', 'freebusy', 'colors'],
    credential: BEARER,
    defaultHeaders: {},
  },
  {
    name: 'slack',
    displayName: 'Slack',
    authType: 'oauth2',
    baseUrl: 'https://slack.com/api',
    // Slack's methods (conversations.list, chat.postMessage) are not scope names: service-wide scopes only.
    resources: [],
    credential: BEARER,
    defaultHeaders: {},
  },
  {
    name: 'notion',
    displayName: 'Notion',
    authType: 'oauth2',
    baseUrl: 'https://api.notion.com/v1',
    resources: ['pages', 'databases', 'blocks', 'search', 'users', 'comments'],
    credential: BEARER,
    // Notion answers 400 without a version header.
    defaultHeaders: { 'notion-version': '2022-06-28' },
  },
  {
    name: 'stripe',
    displayName: 'Stripe',
    authType: 'api_key',
    baseUrl: 'https://api.stripe.com/v1',
    resources: ['customers', 'charges', 'invoices', 'payment_intents', 'subscriptions', 'balance'],
    credential: BEARER,
    defaultHeaders: {},
  },
  {
    name: 'figma',
    displayName: 'Figma',
    authType: 'api_key',
    baseUrl: 'https://api.figma.com/v1',
    resources: ['me', 'files', 'images', 'teams', 'projects'],
    // Personal access tokens travel in Figma's own header.
    credential: { type: 'header', name: 'x-figma-token' },
    defaultHeaders: {},
  },
];

export const CONNECTOR_NAMES: readonly string[] = CONNECTORS.map((connector) => connector.name);

/** The catalogue with base URLs overridden by name (names must exist; checked by the config). */
export function resolveConnectors(
  overrides: Readonly<Record<string, string>> = {},
): ReadonlyMap<string, ConnectorDefinition> {
  return new Map(
    CONNECTORS.map((connector) => [
      connector.name,
      { ...connector, baseUrl: (overrides[connector.name] ?? connector.baseUrl).replace(/\/+$/, '') },
    ]),
  );
}
