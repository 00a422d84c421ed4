/**
 * gateway.usage.charge: the trigger service charges one run to its creating agent before the run,
 * against the agent's daily and monthly limits (as auth.agents.grant states them just before),
 * exactly like one request through the pipeline: the same charger, counter rows and leases, so
 * requests and runs together never pass a limit across replicas. An agent without limits is
 * counted too (the dashboard's usage shows its runs). Refused: served false, the seconds until a
 * unit may be free and the limit in words; the run fails USAGE_LIMIT_EXCEEDED with that message.
 * Counters that cannot answer are 503 SERVICE_UNAVAILABLE: a run is never left uncounted.
 */
import { AppError, GatewayEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { GatewayHandlerDeps } from './gateway-deps.ts';

export const usageCharge = handle(
  GatewayEndpoints.usageCharge,
  async (_caller, { accountId, clientId, limits }, { charger }: GatewayHandlerDeps) => {
    let charge: Awaited<ReturnType<typeof charger.charge>>;
    try {
      charge = await charger.charge({ accountId, clientId }, limits, new Date());
    } catch (error) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        "The run cannot be counted against the agent's limits right now.",
        {
          cause: error,
          expose: true,
        },
      );
    }
    return charge.served
      ? { served: true, retryAfterSeconds: null, message: null }
      : { served: false, retryAfterSeconds: charge.retryAfterSeconds, message: charge.message };
  },
);
