/**
 * gateway.usage.get: the auth service's dashboard asks what some of an owner's agents used:
 * requests today and this month (UTC) and the last request. Answered from the usage counters,
 * only ever from that owner's rows (tenancy: the account id is part of every key read).
 */
import { GatewayEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { usageWindows } from '../domain/usage-windows.ts';
import type { GatewayHandlerDeps } from './gateway-deps.ts';

export const usageGet = handle(
  GatewayEndpoints.usageGet,
  async (_caller, { accountId, clientIds }, { usage }: GatewayHandlerDeps) => ({
    agents: await usage.report(accountId, clientIds, usageWindows(new Date())),
  }),
);
