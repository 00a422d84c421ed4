/**
 * proxy.owner-settings.get, proxy.owner-client.set|remove, proxy.owner-custom.set|remove: the
 * owner's own OAuth clients and generic OAuth 2.0 connectors, from auth's /dashboard/services or
 * `pag connector` (docs/adr/0068). The account is in each message; NATS lets only auth publish
 * these. A client is per account and beats the deployment's for that account only; a connector
 * is validated by the catalogue's schema (connectors/owner-connector.ts), its name must be free,
 * and its URLs must resolve to public addresses. Secrets are sealed by the store and never answered.
 */
import type { ConnectDone } from '@pag/contracts';
import { AppError, ProxyOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { connectorNamed } from '../calls/connection.ts';
import { checkOwnerUrls, ownerDefinition } from '../connectors/owner-connector.ts';
import { disconnect } from '../oauth/connect-flow.ts';
import { flowDeps } from './owner-connect.ts';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

/** An owner defines at most this many connectors of their own. */
const MAX_OWN_CONNECTORS = 25;

/**
 * This replica forgets the account's connectors at once, so the owner's next page sees the change;
 * the others when the table's trigger reaches them (store/credential-changes.ts).
 */
function changed(deps: ProxyHandlerDeps, accountId: string, service: string): void {
  deps.connectors.invalidate(accountId, service);
}

export const settingsGet = handle(ProxyOwnerEndpoints.settingsGet, (_caller, input, deps: ProxyHandlerDeps) =>
  deps.store.owners.settingsOf(input.accountId),
);

export const clientSet = handle(
  ProxyOwnerEndpoints.clientSet,
  async (_caller, input, deps: ProxyHandlerDeps): Promise<ConnectDone> => {
    const connector = connectorNamed(deps.connectors.base, input.service);
    if (connector.oauth === null) {
      throw new AppError(
        'INVALID_REQUEST',
        `${connector.displayName} is connected with an API key, not OAuth.`,
      );
    }
    await deps.store.owners.save(input.accountId, connector.name, {
      definition: null,
      clientId: input.clientId,
      clientSecret: input.clientSecret,
    });
    changed(deps, input.accountId, connector.name);
    return { service: connector.name, displayName: connector.displayName };
  },
);

export const clientRemove = handle(
  ProxyOwnerEndpoints.clientRemove,
  async (_caller, input, deps: ProxyHandlerDeps): Promise<ConnectDone> => {
    const row = await deps.store.owners.find(input.accountId, input.service);
    const connector = deps.connectors.base.get(input.service);
    if (row === undefined || row.definition !== null || connector === undefined) {
      throw new AppError('NOT_FOUND', `You have no client of your own for ${input.service}.`);
    }
    await deps.store.owners.remove(input.accountId, input.service, false);
    changed(deps, input.accountId, input.service);
    return { service: connector.name, displayName: connector.displayName };
  },
);

export const customSet = handle(
  ProxyOwnerEndpoints.customSet,
  async (_caller, { accountId, connector: fields }, deps: ProxyHandlerDeps): Promise<ConnectDone> => {
    const definition = ownerDefinition(fields, deps.allowLoopback);
    const taken = deps.connectors.base.get(definition.name);
    if (taken !== undefined) {
      throw new AppError('INVALID_REQUEST', `name: ${definition.name} is taken by ${taken.displayName}.`, {
        hint: 'Choose another name for your connector.',
      });
    }
    const existing = await deps.store.owners.find(accountId, definition.name);
    if (existing === undefined) {
      const { connectors } = await deps.store.owners.settingsOf(accountId);
      if (connectors.length >= MAX_OWN_CONNECTORS) {
        throw new AppError(
          'INVALID_REQUEST',
          `You have ${MAX_OWN_CONNECTORS} connectors of your own already.`,
        );
      }
    }
    await checkOwnerUrls(definition, deps.allowLoopback);
    const saved = await deps.store.owners.save(accountId, definition.name, {
      definition,
      clientId: fields.clientId,
      clientSecret: fields.clientSecret ?? null,
    });
    if (!saved) throw new AppError('INVALID_REQUEST', 'clientSecret: required for a new connector.');
    changed(deps, accountId, definition.name);
    return { service: definition.name, displayName: definition.displayName };
  },
);

export const customRemove = handle(
  ProxyOwnerEndpoints.customRemove,
  async (_caller, input, deps: ProxyHandlerDeps): Promise<ConnectDone> => {
    const flow = await flowDeps(deps, input.accountId);
    const connector = flow.connectors.get(input.service);
    if (connector === undefined || !connector.owned) {
      throw new AppError('NOT_FOUND', `You have no connector of your own named ${input.service}.`);
    }
    let revoked = false;
    try {
      // Revoked where the provider offers it, then forgotten: as a disconnect.
      revoked = (await disconnect(input, flow)).revoked ?? false;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    }
    await deps.store.owners.remove(input.accountId, input.service, true);
    changed(deps, input.accountId, input.service);
    return { service: connector.name, displayName: connector.displayName, revoked };
  },
);
