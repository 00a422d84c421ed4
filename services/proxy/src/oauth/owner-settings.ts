/**
 * The owner's own OAuth clients and generic OAuth 2.0 connectors (docs/adr/0068), whoever asks:
 * the dashboard over the bus (handlers/owner-settings.ts) or the operator (`pag connector`,
 * operator/store-api-key.ts). A client is per account and beats the deployment's for that account
 * only; a connector is validated by the catalogue's schema (connectors/owner-connector.ts), its
 * name must be free, and its URLs must resolve to public addresses. Deleting a connector
 * disconnects it (revoked at the provider where it offers revocation) and forgets its tokens.
 * Secrets are sealed by the store and never answered.
 */
import type { ConnectDone, OwnerConnectorFields } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { connectorNamed } from '../calls/connection.ts';
import type { ConnectorDefinition, OAuthClient } from '../connectors/catalogue.ts';
import { checkOwnerUrls, ownerDefinition } from '../connectors/owner-connector.ts';
import type { OwnerConnectorStore } from '../store/owner-connector-store.ts';
import type { ConnectFlowDeps } from './connect-flow.ts';
import { disconnect } from './connect-flow.ts';

/** An owner defines at most this many connectors of their own. */
const MAX_OWN_CONNECTORS = 25;

export interface OwnerSettingsDeps {
  /** The catalogue and the deployment's connectors (what an owner's client may be for). */
  base: ReadonlyMap<string, ConnectorDefinition>;
  owners: OwnerConnectorStore;
  /** CONNECTOR_ALLOW_LOOPBACK: http on loopback allowed (tests only). */
  allowLoopback: boolean;
}

export async function setOwnerClient(
  deps: OwnerSettingsDeps,
  accountId: string,
  service: string,
  client: OAuthClient,
): Promise<ConnectDone> {
  const connector = connectorNamed(deps.base, service);
  if (connector.oauth === null) {
    throw new AppError(
      'INVALID_REQUEST',
      `${connector.displayName} is connected with an API key, not OAuth.`,
    );
  }
  await deps.owners.save(accountId, connector.name, { definition: null, ...client });
  return { service: connector.name, displayName: connector.displayName };
}

export async function removeOwnerClient(
  deps: OwnerSettingsDeps,
  accountId: string,
  service: string,
): Promise<ConnectDone> {
  const row = await deps.owners.find(accountId, service);
  const connector = deps.base.get(service);
  if (row === undefined || row.definition !== null || connector === undefined) {
    throw new AppError('NOT_FOUND', `You have no client of your own for ${service}.`);
  }
  await deps.owners.remove(accountId, service, false);
  return { service: connector.name, displayName: connector.displayName };
}

export async function setOwnerConnector(
  deps: OwnerSettingsDeps,
  accountId: string,
  fields: OwnerConnectorFields,
): Promise<ConnectDone> {
  const definition = ownerDefinition(fields, deps.allowLoopback);
  const taken = deps.base.get(definition.name);
  if (taken !== undefined) {
    throw new AppError('INVALID_REQUEST', `name: ${definition.name} is taken by ${taken.displayName}.`, {
      hint: 'Choose another name for your connector.',
    });
  }
  const existing = await deps.owners.find(accountId, definition.name);
  if (existing?.definition === null) {
    throw new AppError('INVALID_REQUEST', `name: ${definition.name} is taken by one of your clients.`);
  }
  if (existing === undefined) {
    const { connectors } = await deps.owners.settingsOf(accountId);
    if (connectors.length >= MAX_OWN_CONNECTORS) {
      throw new AppError('INVALID_REQUEST', `You have ${MAX_OWN_CONNECTORS} connectors of your own already.`);
    }
  }
  await checkOwnerUrls(definition, deps.allowLoopback);
  const saved = await deps.owners.save(accountId, definition.name, {
    definition,
    clientId: fields.clientId,
    clientSecret: fields.clientSecret ?? null,
  });
  if (!saved) throw new AppError('INVALID_REQUEST', 'clientSecret: required for a new connector.');
  return { service: definition.name, displayName: definition.displayName };
}

/** `flow`: the connect flow's dependencies for this account (its connectors include the owner's own). */
export async function removeOwnerConnector(
  deps: OwnerSettingsDeps,
  flow: ConnectFlowDeps,
  accountId: string,
  service: string,
): Promise<ConnectDone> {
  const connector = flow.connectors.get(service);
  if (connector === undefined || !connector.owned) {
    throw new AppError('NOT_FOUND', `You have no connector of your own named ${service}.`);
  }
  let revoked = false;
  try {
    revoked = (await disconnect({ accountId, service }, flow)).revoked ?? false;
  } catch (error) {
    // Not connected: nothing to revoke.
    if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
  }
  await deps.owners.remove(accountId, service, true);
  return { service: connector.name, displayName: connector.displayName, revoked };
}
