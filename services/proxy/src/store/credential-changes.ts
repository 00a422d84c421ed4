/**
 * Keeps the credential cache true to the database: the proxy's tables announce every change of a
 * connection or vault token on the channel `proxy_credentials` (a trigger, migration
 * 20261124190000_proxy_credential_changes), whoever writes the row (this service, `pag`, a refresh,
 * a key rotation on another replica, an operator's SQL), and each replica drops that (account,
 * service) from its cache when PostgreSQL delivers it, at the writer's commit. While the listening
 * connection is down the cache answers nothing from memory (CredentialCache.setLive).
 */
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
import type { CredentialCache } from '../calls/credential-cache.ts';

export const CREDENTIAL_CHANNEL = 'proxy_credentials';

export function followCredentialChanges(options: {
  databaseUrl: string;
  cache: CredentialCache;
  logger: Logger;
}): Promise<NotificationListener> {
  const { cache } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: CREDENTIAL_CHANNEL,
    logger: options.logger,
    onListening: (listening) => cache.setLive(listening),
    handler: (payload) => {
      // `<account id> <service>`, or `*`: a table was truncated.
      const space = payload.indexOf(' ');
      if (space === -1) return cache.clear();
      cache.invalidate(payload.slice(0, space), payload.slice(space + 1));
    },
  });
}
