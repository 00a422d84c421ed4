/**
 * proxy.owner-settings.get, proxy.owner-client.set|remove, proxy.owner-custom.set|remove: the
 * owner's own OAuth clients and generic OAuth 2.0 connectors, from auth's /dashboard/services
 * (oauth/owner-settings.ts; docs/adr/0068). The account is in each message; NATS lets only auth
 * publish these. After a change this replica forgets the account's connectors at once, so the
 * owner's next page sees it; the other replicas when the table's trigger reaches them.
 */
import type { ConnectDone } from '@pag/contracts';
import { ProxyOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { OwnerSettingsDeps } from '../oauth/owner-settings.ts';
import {
  removeOwnerClient,
  removeOwnerConnector,
  setOwnerClient,
  setOwnerConnector,
} from '../oauth/owner-settings.ts';
import { flowDeps } from './owner-connect.ts';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

function settingsDeps(deps: ProxyHandlerDeps): OwnerSettingsDeps {
  return { base: deps.connectors.base, owners: deps.store.owners, allowLoopback: deps.allowLoopback };
}

async function changing(deps: ProxyHandlerDeps, accountId: string, change: Promise<ConnectDone>) {
  const done = await change;
  deps.connectors.invalidate(accountId, done.service);
  return done;
}

export const settingsGet = handle(ProxyOwnerEndpoints.settingsGet, (_caller, input, deps: ProxyHandlerDeps) =>
  deps.store.owners.settingsOf(input.accountId),
);

export const clientSet = handle(ProxyOwnerEndpoints.clientSet, (_caller, input, deps: ProxyHandlerDeps) =>
  changing(
    deps,
    input.accountId,
    setOwnerClient(settingsDeps(deps), input.accountId, input.service, {
      clientId: input.clientId,
      clientSecret: input.clientSecret,
    }),
  ),
);

export const clientRemove = handle(
  ProxyOwnerEndpoints.clientRemove,
  (_caller, input, deps: ProxyHandlerDeps) =>
    changing(deps, input.accountId, removeOwnerClient(settingsDeps(deps), input.accountId, input.service)),
);

export const customSet = handle(ProxyOwnerEndpoints.customSet, (_caller, input, deps: ProxyHandlerDeps) =>
  changing(deps, input.accountId, setOwnerConnector(settingsDeps(deps), input.accountId, input.connector)),
);

export const customRemove = handle(
  ProxyOwnerEndpoints.customRemove,
  async (_caller, input, deps: ProxyHandlerDeps) =>
    changing(
      deps,
      input.accountId,
      removeOwnerConnector(
        settingsDeps(deps),
        await flowDeps(deps, input.accountId),
        input.accountId,
        input.service,
      ),
    ),
);
