/**
 * Keeps the credential cache true to the database: the proxy's tables announce every change of a
 * connection or vault token on the channel `proxy_credentials` (a trigger, migration
 * 20261124190000_proxy_credential_changes), whoever writes the row (this service, `pag`, a refresh,
 * a key rotation on another replica, an operator's SQL), and each replica drops that (account,
 * service) from its cache when PostgreSQL delivers it, at the writer's commit. While the listening
 * connection is down the cache answers nothing from memory (CredentialCache.setLive). The same
 * announcements drop the account's list of connected services (ServiceListCache), which waits for
 * the listener's round trip before it answers from memory (docs/adr/0070).
 */
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
import type { CredentialCache } from '../calls/credential-cache.ts';
import type { ServiceListCache } from './service-list-cache.ts';

export const CREDENTIAL_CHANNEL = 'proxy_credentials';

export function followCredentialChanges(options: {
  databaseUrl: string;
  cache: CredentialCache;
  /** The connected services per account, dropped on the same announcements. */
  services: ServiceListCache;
  logger: Logger;
}): Promise<NotificationListener> {
  const { cache, services } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: CREDENTIAL_CHANNEL,
    logger: options.logger,
    onListening: (listening) => {
      cache.setLive(listening);
      services.setLive(listening);
    },
    handler: (payload) => {
      // `<account id> <service>`, or `*`: a table was truncated.
      const space = payload.indexOf(' ');
      if (space === -1) {
        cache.clear();
        services.clear();
        return;
      }
      const accountId = payload.slice(0, space);
      cache.invalidate(accountId, payload.slice(space + 1));
      services.invalidate(accountId);
    },
  });
}
