/**
 * The brain's answers on the bus, one handler per subject (BrainSubjects), each in the queue
 * group `brain` so replicas share them, each timed into brain_bus_request_duration_seconds.
 * brain.chat.send has no handler yet (it needs an LLM provider): the gateway answers 503 naming
 * the brain, which is the truth, rather than a made-up reply.
 * serveBrainApi resolves once every subscription is registered.
 */
import { AppError, BrainSubjects, QueueGroups } from '@pag/contracts';
import type { Bus, BusMessage, Logger, Metrics, Subscription } from '@pag/kit';
import { Histogram } from 'prom-client';
import type { OwnerIdentity } from '../identity/owner-identity.ts';
import type { BrainStores } from '../store/mod.ts';
import { contextGet } from './context-get.ts';
import { identityGet } from './identity-get.ts';
import { knowledgeList } from './knowledge-list.ts';
import { memoryCreate } from './memory-create.ts';
import { personasList } from './personas-list.ts';

export interface BrainApiDeps {
  bus: Bus;
  stores: BrainStores;
  identity: OwnerIdentity;
  logger: Logger;
  metrics: Metrics;
}

type Handler = (msg: BusMessage<unknown>) => Promise<unknown>;

const METRIC = 'brain_bus_request_duration_seconds';

/** One histogram per registry: the embedded stack and tests may start the brain twice on one. */
function requestDuration(metrics: Metrics): Histogram<'subject' | 'code'> {
  const existing = metrics.registry.getSingleMetric(METRIC);
  if (existing !== undefined) return existing as Histogram<'subject' | 'code'>;
  return new Histogram({
    name: METRIC,
    help: "Duration of the brain's bus requests by subject and outcome (ok or the error code).",
    labelNames: ['subject', 'code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics.registry],
  });
}

export async function serveBrainApi(deps: BrainApiDeps): Promise<Subscription[]> {
  const histogram = requestDuration(deps.metrics);
  const timed = (subject: string, handler: Handler): Handler => {
    return async (msg) => {
      const stop = histogram.startTimer({ subject });
      try {
        const reply = await handler(msg);
        stop({ code: 'ok' });
        return reply;
      } catch (error) {
        stop({ code: error instanceof AppError ? error.code : 'INTERNAL_ERROR' });
        throw error;
      }
    };
  };
  const handlers: [string, Handler][] = [
    [BrainSubjects.contextGet, contextGet(deps)],
    [BrainSubjects.memoryCreate, memoryCreate(deps)],
    [BrainSubjects.personasList, personasList(deps)],
    [BrainSubjects.identityGet, identityGet(deps)],
    [BrainSubjects.knowledgeList, knowledgeList(deps)],
  ];
  const subscriptions: Subscription[] = [];
  try {
    for (const [subject, handler] of handlers) {
      subscriptions.push(
        await deps.bus.handle(subject, timed(subject, handler), { queue: QueueGroups.brain }),
      );
    }
  } catch (error) {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    throw error;
  }
  return subscriptions;
}
