/**
 * The trigger service as a unit that main.ts and the embedded stack both start, on an existing
 * bus, logger and metrics registry: the database client, its answers on the bus (endpoints.ts)
 * and the scheduler (src/scheduler/, docs/adr/0048), which plans due triggers, claims queued runs
 * and carries them out. It has no HTTP listener of its own.
 *
 * close(), in order: stop answering (handlers already running finish), stop the scheduler (no
 * more planning or claiming; running runs finish within its stop budget, the rest is left to the
 * lease rule), wait for the audit events under way, then disconnect the database.
 */

import { AuthEndpoints } from '@pag/contracts';
import type { ServiceDeps } from '@pag/kit';
import {
  actionAuditPublisher,
  closeSubscriptions,
  createPrismaClient,
  requestEndpoint,
  serveEndpoints,
  sqlPoolOf,
} from '@pag/kit';
import type { TriggerConfig } from './config.ts';
import { TriggerControl } from './control/trigger-control.ts';
import { triggerDatabase } from './database.ts';
import { triggerEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { startScheduler } from './scheduler/scheduler.ts';
import type { Scheduler } from './scheduler/types.ts';
import { TriggerStore } from './store/trigger-store.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type TriggerDeps = ServiceDeps<TriggerConfig>;

export interface RunningTrigger extends AsyncDisposable {
  /** Its scheduler: started with the service, stopped by close(); `tick()` runs a pass now. */
  readonly scheduler: Scheduler;
  close(): Promise<void>;
}

export async function startTrigger(deps: TriggerDeps): Promise<RunningTrigger> {
  const { config, bus, logger, metrics } = deps;
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: triggerDatabase.schema,
    logger,
  });
  const audit = actionAuditPublisher('trigger', bus, logger);
  const closers: (() => Promise<void>)[] = [() => prisma.$disconnect(), () => audit.close()];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      for (const closer of closers.splice(0).reverse()) await closer();
    })();
    return closing;
  };
  try {
    const control = new TriggerControl({
      store: new TriggerStore(prisma),
      grants: (query) =>
        requestEndpoint(bus, AuthEndpoints.agentGrant, query, { timeoutMs: config.grantTimeoutMs }),
      audit,
    });
    const scheduler = startScheduler({
      pool: sqlPoolOf(prisma),
      bus,
      logger,
      audit,
      settings: config.scheduler,
    });
    closers.push(() => scheduler.stop());
    const subscriptions = await serveEndpoints(
      bus,
      { service: 'trigger', deps: { control }, logger, metrics },
      triggerEndpoints,
    );
    closers.push(() => closeSubscriptions(subscriptions));
    logger.info(
      { subjects: subscriptions.length, tickMs: config.scheduler.tickMs },
      'trigger service started',
    );
    return { scheduler, close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await close();
    throw error;
  }
}
