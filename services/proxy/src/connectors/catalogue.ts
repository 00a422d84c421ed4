/**
 * The proxy's connectors: the contracts' catalogue (packages/contracts/src/connectors/providers,
 * one declarative definition per provider) plus the deployment's own OAuth 2.0 connectors
 * (CONNECTOR_CUSTOM, validated by the same schema), each with the client credentials of this
 * deployment (CONNECTOR_CLIENTS) and its base URL possibly overridden (CONNECTOR_BASE_URLS, for
 * tests and staging). Everything else about a catalogue connector is fixed in its definition.
 */
import type { Agent } from 'node:http';
import type { OAuth2Auth, ProviderDefinition } from '@pag/contracts';
import { PROVIDERS } from '@pag/contracts';

/** How the decrypted credential is put on the outgoing request. */
export type CredentialPlacement = ProviderDefinition['api']['credential'];

/** This deployment's client at a provider (CONNECTOR_CLIENTS). */
export interface OAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface ConnectorDefinition {
  readonly name: string;
  readonly displayName: string;
  readonly authType: 'oauth2' | 'api_key';
  /** The API root; the forwarded path is appended to it. */
  readonly baseUrl: string;
  readonly resources: readonly string[];
  readonly credential: CredentialPlacement;
  /** Headers the API requires, sent when the caller did not send them (e.g. Notion-Version). */
  readonly defaultHeaders: Readonly<Record<string, string>>;
  /** OAuth 2.0: the provider's endpoints and behaviour; null for API-key connectors. */
  readonly oauth: OAuth2Auth | null;
  /** OAuth 2.0: the client in use, or null when none is configured (cannot connect). */
  readonly client: OAuthClient | null;
  /** Whose client that is: the owner's own (docs/adr/0068) beats the deployment's. */
  readonly clientSource: 'owner' | 'deployment' | null;
  /**
   * An owner's own connector (connectors/owner-connector.ts): seen by that owner only, and every
   * request for it goes to public addresses only (the owner is not trusted like the operator).
   */
  readonly owned: boolean;
  /**
   * Set for an owner's own connector: every request for it (token, refresh, revocation, calls)
   * goes to checked public addresses only; `agent` is the API's (its lookup refuses the others).
   */
  readonly publicOnly: { readonly allowLoopback: boolean; readonly agent: Agent } | null;
  /** API-key connectors: where the owner finds the key. */
  readonly keyHint: string | null;
  readonly readAccess: string;
}

export const CONNECTOR_NAMES: readonly string[] = PROVIDERS.map((provider) => provider.name);

export interface ConnectorSettings {
  baseUrls?: Readonly<Record<string, string>>;
  clients?: Readonly<Record<string, OAuthClient>>;
  /** The deployment's own connectors, already validated (config.ts). */
  custom?: readonly (ProviderDefinition & { client: OAuthClient })[];
}

export function toConnector(
  provider: ProviderDefinition,
  client: OAuthClient | null,
  baseUrl?: string,
): ConnectorDefinition {
  const oauth = provider.auth.type === 'oauth2';
  return {
    name: provider.name,
    displayName: provider.displayName,
    authType: provider.auth.type,
    baseUrl: (baseUrl ?? provider.api.baseUrl).replace(/\/+$/, ''),
    resources: provider.resources,
    credential: provider.api.credential,
    defaultHeaders: provider.api.defaultHeaders,
    oauth: provider.auth.type === 'oauth2' ? provider.auth : null,
    client: oauth ? client : null,
    clientSource: oauth && client !== null ? 'deployment' : null,
    owned: false,
    publicOnly: null,
    keyHint: provider.auth.type === 'api_key' ? provider.auth.keyHint : null,
    readAccess: provider.access.readAccess,
  };
}

/** The catalogue with this deployment's settings applied (names are checked by the config). */
export function resolveConnectors(
  settings: ConnectorSettings = {},
): ReadonlyMap<string, ConnectorDefinition> {
  const { baseUrls = {}, clients = {}, custom = [] } = settings;
  return new Map([
    ...PROVIDERS.map((provider): [string, ConnectorDefinition] => [
      provider.name,
      toConnector(provider, clients[provider.name] ?? null, baseUrls[provider.name]),
    ]),
    ...custom.map((provider): [string, ConnectorDefinition] => [
      provider.name,
      toConnector(provider, provider.client, baseUrls[provider.name]),
    ]),
  ]);
}
