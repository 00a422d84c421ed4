/**
 * Which connector a call names and the account's credential for it, for both ways a call comes
 * in (HTTP from the gateway, proxy.calls.forward from the brain). A name outside the catalogue is
 * 404 NOT_FOUND (GET /api/v1/connectors lists the catalogue); a connector this account has not
 * connected, or whose connection expired or failed, tells the agent that the owner must connect
 * it (notConnected, errors.ts).
 */
import { AppError } from '@pag/contracts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { notConnected } from '../errors.ts';
import type { VaultStore } from '../store/vault-store.ts';

/** The vault token a call uses, and its decrypted value (sent to the connector's host only). */
export interface Credential {
  tokenId: string;
  value: string;
  /** When the token expires (null: when it is revoked or replaced); a cached copy is not used past it. */
  expiresAt: Date | null;
}

export function connectorNamed(
  connectors: ReadonlyMap<string, ConnectorDefinition>,
  name: string,
): ConnectorDefinition {
  const connector = connectors.get(name);
  if (connector === undefined) {
    throw new AppError('NOT_FOUND', `No connector is named ${name}.`, {
      hint: 'GET /api/v1/connectors lists the services an owner can connect.',
    });
  }
  return connector;
}

export async function credentialOf(
  store: VaultStore,
  accountId: string,
  connector: ConnectorDefinition,
): Promise<Credential> {
  const found = await store.credentialFor(accountId, connector.name);
  if (found.state !== 'connected') throw notConnected(connector, found.state);
  return { tokenId: found.tokenId, value: found.value, expiresAt: found.expiresAt };
}
