/**
 * What the owner's agents used, asked of the gateway (it counts every request) over the bus.
 * The dashboard must work without it: when no gateway answers in time, or its answer does not
 * fit the contract, the page says "usage unavailable" instead of failing.
 */
import { randomUUID } from 'node:crypto';
import type { AgentUsage } from '@pag/contracts';
import { GatewayEndpoints, MessageHeaders, UsageQuery } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { BusNoRespondersError, BusTimeoutError, requestEndpoint } from '@pag/kit';
import type { Agent } from '../store/agent-store.ts';

export const USAGE_TIMEOUT_MS = 2000;

/** UsageQuery admits this many client ids per request. */
const BATCH = 1000;

export interface UsageLookup {
  bus: Bus;
  logger: Logger;
  accountId: string;
  /** Correlates the bus requests with the page request. */
  requestId?: string | undefined;
}

/** The usage of each agent by client id; null when the gateway could not tell. */
export async function agentUsage(
  { bus, logger, accountId, requestId }: UsageLookup,
  agents: readonly Agent[],
): Promise<Map<string, AgentUsage> | null> {
  const clientIds = [...new Set(agents.map((agent) => agent.clientId))];
  const usage = new Map<string, AgentUsage>();
  const headers = { [MessageHeaders.requestId]: requestId || randomUUID() };
  try {
    for (let start = 0; start < clientIds.length; start += BATCH) {
      const query = UsageQuery.parse({ accountId, clientIds: clientIds.slice(start, start + BATCH) });
      const reply = await requestEndpoint(bus, GatewayEndpoints.usageGet, query, {
        timeoutMs: USAGE_TIMEOUT_MS,
        headers,
      });
      for (const entry of reply.agents) usage.set(entry.clientId, entry);
    }
    return usage;
  } catch (error) {
    const absent = error instanceof BusNoRespondersError || error instanceof BusTimeoutError;
    logger[absent ? 'info' : 'warn']({ err: error, accountId, requestId }, 'agent usage unavailable');
    return null;
  }
}
