/**
 * Keeps the context's kept parts (ContextPartsCache) true to the database: the brain's tables
 * announce every change of a persona, an assignment, an account's default, an identity profile and
 * the memory's count and version on the channel `brain_context` (statement triggers, migration
 * 20261124230000_brain_context_changes), whoever writes the rows, and each replica drops those
 * accounts' parts when PostgreSQL delivers it. While the listening connection is down nothing is
 * answered from memory (ContextPartsCache.setLive). docs/adr/0071.
 */
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
import type { ContextPartsCache } from './context-parts-cache.ts';

export const CONTEXT_CHANNEL = 'brain_context';

export function followContextChanges(options: {
  databaseUrl: string;
  cache: ContextPartsCache;
  logger: Logger;
}): Promise<NotificationListener> {
  const { cache } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: CONTEXT_CHANNEL,
    logger: options.logger,
    onListening: (listening) => cache.setLive(listening),
    handler: (payload) => {
      // The account ids one statement touched, separated by spaces, or `*`: drop everything.
      if (payload === '*') cache.clear();
      else for (const accountId of payload.split(' ')) cache.invalidate(accountId);
    },
  });
}
