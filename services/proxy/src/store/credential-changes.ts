/**
 * Keeps the credential cache and the connector registry true to the database: the proxy's tables
 * announce every change of a connection, vault token or owner's connector on the channel `proxy_credentials` (a trigger, migration
 * 20261124190000_proxy_credential_changes), whoever writes the row (this service, `pag`, a refresh,
 * a key rotation on another replica, an operator's SQL), and each replica drops that (account,
 * service) from its cache when PostgreSQL delivers it, at the writer's commit. While the listening
 * connection is down the cache answers nothing from memory (CredentialCache.setLive). The same
 * announcements drop the account's list of connected services (ServiceListCache), which waits for
 * the listener's round trip before it answers from memory (docs/adr/0070).
 */
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
/**
 * What is kept in memory and must hear every change (the credential cache, the connector registry,
 * the lists of connected services).
 */
export interface ChangeFollower {
  invalidate(accountId: string, service: string): void;
  clear(): void;
  setLive(live: boolean): void;
}

export const CREDENTIAL_CHANNEL = 'proxy_credentials';

export function followCredentialChanges(options: {
  databaseUrl: string;
  caches: readonly ChangeFollower[];
  logger: Logger;
}): Promise<NotificationListener> {
  const { caches } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: CREDENTIAL_CHANNEL,
    logger: options.logger,
    onListening: (listening) => {
      for (const cache of caches) cache.setLive(listening);
    },
    handler: (payload) => {
      // `<account id> <service>`, or `*`: a table was truncated.
      const space = payload.indexOf(' ');
      for (const cache of caches) {
        if (space === -1) cache.clear();
        else cache.invalidate(payload.slice(0, space), payload.slice(space + 1));
      }
    },
  });
}
