/**
 * The trigger service's control on its own database client, for `pag trigger`, which lists and
 * changes an owner's triggers in the database directly (as `pag memory` uses the brain's stores):
 * the same TriggerControl the owner's endpoints use, with the creator's standing read by the
 * caller (the CLI reads the auth service's store) and no audit events (the CLI has no bus).
 * close() disconnects the client.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import type { AgentGrants } from './control/trigger-control.ts';
import { TriggerControl } from './control/trigger-control.ts';
import { triggerDatabase } from './database.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { TriggerStore } from './store/trigger-store.ts';

export interface OpenTriggers extends AsyncDisposable {
  readonly control: TriggerControl;
  close(): Promise<void>;
}

export function openTriggers(options: {
  databaseUrl: string;
  grants: AgentGrants;
  logger?: Logger;
}): OpenTriggers {
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: options.databaseUrl,
    schema: triggerDatabase.schema,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const control = new TriggerControl({
    store: new TriggerStore(prisma),
    grants: options.grants,
    audit: null,
  });
  const close = () => prisma.$disconnect();
  return { control, close, [Symbol.asyncDispose]: close };
}
