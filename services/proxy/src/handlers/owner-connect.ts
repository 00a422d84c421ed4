/**
 * proxy.owner-connect.start|finish|api-key|disconnect: the auth service's /dashboard/services
 * connecting and disconnecting the signed-in owner's services (the account is in each message;
 * NATS lets only the auth service publish these). The flow itself is oauth/connect-flow.ts; these
 * four are its bus answers, kept together because each is one line.
 */
import { ProxyOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ConnectFlowDeps } from '../oauth/connect-flow.ts';
import { connectApiKey, disconnect, finishConnect, startConnect } from '../oauth/connect-flow.ts';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

/** The flow's dependencies for one account: its connectors include the owner's own. */
export async function flowDeps(deps: ProxyHandlerDeps, accountId: string): Promise<ConnectFlowDeps> {
  return {
    connectors: await deps.connectors.forAccount(accountId),
    store: deps.store,
    connect: deps.connect,
    connectStateTtlMs: deps.connectStateTtlMs,
    timeoutMs: deps.calls.timeoutMs,
  };
}

export const connectStart = handle(
  ProxyOwnerEndpoints.connectStart,
  async (_caller, input, deps: ProxyHandlerDeps) =>
    startConnect(input, await flowDeps(deps, input.accountId)),
);

export const connectFinish = handle(
  ProxyOwnerEndpoints.connectFinish,
  async (_caller, input, deps: ProxyHandlerDeps) =>
    finishConnect(input, await flowDeps(deps, input.accountId)),
);

export const connectKey = handle(
  ProxyOwnerEndpoints.connectApiKey,
  async (_caller, input, deps: ProxyHandlerDeps) =>
    connectApiKey(input, await flowDeps(deps, input.accountId)),
);

export const connectionRemove = handle(
  ProxyOwnerEndpoints.disconnect,
  async (_caller, input, deps: ProxyHandlerDeps) => disconnect(input, await flowDeps(deps, input.accountId)),
);
