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

function flowDeps(deps: ProxyHandlerDeps): ConnectFlowDeps {
  return {
    connectors: deps.connectors,
    store: deps.store,
    connect: deps.connect,
    connectStateTtlMs: deps.connectStateTtlMs,
    timeoutMs: deps.calls.timeoutMs,
  };
}

export const connectStart = handle(
  ProxyOwnerEndpoints.connectStart,
  (_caller, input, deps: ProxyHandlerDeps) => startConnect(input, flowDeps(deps)),
);

export const connectFinish = handle(
  ProxyOwnerEndpoints.connectFinish,
  (_caller, input, deps: ProxyHandlerDeps) => finishConnect(input, flowDeps(deps)),
);

export const connectKey = handle(
  ProxyOwnerEndpoints.connectApiKey,
  (_caller, input, deps: ProxyHandlerDeps) => connectApiKey(input, flowDeps(deps)),
);

export const connectionRemove = handle(
  ProxyOwnerEndpoints.disconnect,
  (_caller, input, deps: ProxyHandlerDeps) => disconnect(input, flowDeps(deps)),
);
