/**
 * proxy.calls.forward (from the brain, for a trigger run): one call to a connected service as the
 * run's agent with the run's scopes, decided, made and audited as over HTTP (calls/forward-call.ts).
 * Refusals are the catalogue's errors: INVALID_REQUEST, INSUFFICIENT_SCOPE, METHOD_OVERRIDE_REFUSED,
 * BODY_NOT_ALLOWED, NOT_FOUND, SERVICE_NOT_CONNECTED, UPSTREAM_TIMEOUT, UPSTREAM_ERROR.
 */
import { ProxyEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { forwardCall } from '../calls/forward-call.ts';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

export const callForward = handle(ProxyEndpoints.callForward, async (caller, call, deps: ProxyHandlerDeps) =>
  forwardCall(call, caller, {
    ...deps.calls,
    store: deps.store,
    refresher: deps.refresher,
    connectors: await deps.connectors.forAccount(call.accountId),
  }),
);
