/**
 * The brain as a unit that main.ts and the embedded stack both start, on an existing bus, logger
 * and metrics registry: the database client, then its answers on the bus (endpoints.ts). It
 * has no HTTP listener of its own, and one listening connection to PostgreSQL (the context's
 * changes, store/context-changes.ts). close() stops the subscriptions (handlers already running
 * finish), waits for the chat's audit publishes, stops listening and then disconnects the
 * database, in that order.
 */
import type { NotificationListener, ServiceDeps } from '@pag/kit';
import { closeSubscriptions, createPrismaClient, serveEndpoints } from '@pag/kit';
import { chatAudit } from './chat/chat-audit.ts';
import { ChatProviders } from './chat/chat-providers.ts';
import { OwnerGate } from './chat/owner-gate.ts';
import type { BrainConfig } from './config.ts';
import { brainDatabase } from './database.ts';
import { brainEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { DefaultPersona } from './identity/default-persona.ts';
import { OwnerIdentity } from './identity/owner-identity.ts';
import { brainStores } from './store/brain-stores.ts';
import { followContextChanges } from './store/context-changes.ts';
import { ContextPartsCache } from './store/context-parts-cache.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type BrainDeps = ServiceDeps<BrainConfig>;

export interface RunningBrain extends AsyncDisposable {
  close(): Promise<void>;
}

export async function startBrain(deps: BrainDeps): Promise<RunningBrain> {
  const { config, bus, logger, metrics } = deps;
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: brainDatabase.schema,
    logger,
  });
  let changes: NotificationListener | undefined;
  try {
    // The context's parts are answered from memory after a round trip on this listener (ADR 0071).
    const contextParts = new ContextPartsCache(() => changes?.sync() ?? Promise.resolve(false));
    changes = await followContextChanges({ databaseUrl: config.databaseUrl, cache: contextParts, logger });
    const stores = brainStores(prisma, contextParts);
    const defaultPersona = new DefaultPersona(stores.personas);
    const identity = new OwnerIdentity({
      bus,
      identities: stores.identities,
      defaultPersona,
      authTimeoutMs: config.authTimeoutMs,
      logger,
    });
    const audit = chatAudit(bus, logger);
    const chat = {
      providers: new ChatProviders({
        store: stores.providers,
        deployment: config.chat.provider,
        encryptionKey: config.encryptionKey,
      }),
      gate: new OwnerGate(config.chat.ownerConcurrency),
      audit,
      config: config.chat,
    };
    const subscriptions = await serveEndpoints(
      bus,
      {
        service: 'brain',
        deps: { stores, identity, defaultPersona, chat, bus, promptRun: config.promptRun },
        logger,
        metrics,
      },
      brainEndpoints,
    );
    logger.info({ subjects: subscriptions.length }, 'brain answering on the bus');
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        await closeSubscriptions(subscriptions);
        // Chat replies that finished while closing published their audit events; wait for them.
        await audit.close();
        await changes?.close();
        await prisma.$disconnect();
      })();
      return closing;
    };
    return { close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await changes?.close();
    await prisma.$disconnect();
    throw error;
  }
}
