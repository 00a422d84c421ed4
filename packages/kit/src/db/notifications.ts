/**
 * PostgreSQL LISTEN/NOTIFY: how a process that shares only the database with a service (an
 * operator command next to a running stack whose bus is in memory) tells it something at once.
 *
 * listenForNotifications keeps one dedicated connection LISTENing on a channel and hands each
 * payload to the handler; when the connection drops it reconnects (1 s, doubling, at most 30 s)
 * and LISTENs again. Notifications sent while it was down are lost, as NOTIFY's are: use it for
 * hints whose absence is bounded (e.g. a cache entry that expires by itself), or say through
 * `onListening` when it is not listening (false when the connection drops, true once LISTEN runs
 * again), so a cache can stop answering from memory while changes could go unheard.
 */
import pg from 'pg';
import type { Logger } from '../log/logger.ts';

export interface NotificationListener {
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export async function listenForNotifications(options: {
  databaseUrl: string;
  channel: string;
  handler: (payload: string) => Promise<void> | void;
  logger: Logger;
  /** Told false when the connection dropped, true each time LISTEN has run (the first time too). */
  onListening?: (listening: boolean) => void;
}): Promise<NotificationListener> {
  const { databaseUrl, channel, handler, logger, onListening } = options;
  if (!CHANNEL.test(channel)) throw new Error(`invalid channel name: ${channel}`);
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 1000;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.channel !== channel || message.payload === undefined) return;
      Promise.resolve()
        .then(() => handler(message.payload as string))
        .catch((error: unknown) => logger.error({ err: error, channel }, 'notification handler failed'));
    });
    next.on('error', (error) => {
      onListening?.(false);
      logger.warn({ err: error, channel }, 'notification connection lost; reconnecting');
      void next.end().catch(() => {});
      schedule();
    });
    await next.connect();
    // The channel name was checked above: it is a plain identifier.
    await next.query(`LISTEN ${channel}`);
    client = next;
    retryMs = 1000;
    onListening?.(true);
  };

  const schedule = () => {
    client = undefined;
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch((error: unknown) => {
        logger.warn({ err: error, channel, retryMs }, 'notification listener could not reconnect');
        retryMs = Math.min(retryMs * 2, 30_000);
        schedule();
      });
    }, retryMs);
    timer.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
