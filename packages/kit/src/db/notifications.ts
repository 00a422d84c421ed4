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
 *
 * `sync()` closes the gap between a writer's commit and its notification's arrival: it makes a
 * round trip on the listening connection that starts after the call, and PostgreSQL sends a
 * listening session every notification committed before a command ends before that command's
 * ReadyForQuery (postgres.c, "if any notifies were received during the just-finished transaction,
 * they'll be seen by the client before ReadyForQuery is"; the committing backend signals the
 * listeners at its commit, before its own client hears of it). So when `sync()` resolves true,
 * the handler has been called for every notification whose transaction committed before the call:
 * a cache invalidated by the handler then holds nothing older than a change its caller could have
 * seen. Callers that arrive while a round trip is under way share the next one (one statement for
 * many callers under load, as a group commit).
 */
import pg from 'pg';
import type { Logger } from '../log/logger.ts';

export interface NotificationListener {
  /**
   * True after a round trip that began after this call, every notification committed before the
   * call handed to the handler by then; false when not listening (nothing can be promised).
   */
  sync(): Promise<boolean>;
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
  /** How long sync() waits for its round trip before it answers false (default 1 s). */
  syncTimeoutMs?: number;
}): Promise<NotificationListener> {
  const { databaseUrl, channel, handler, logger, onListening, syncTimeoutMs = 1_000 } = options;
  if (!CHANNEL.test(channel)) throw new Error(`invalid channel name: ${channel}`);
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 1000;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    // Named, so an operator (or a test) finds the listening sessions in pg_stat_activity.
    const next = new pg.Client({ connectionString: databaseUrl, application_name: `pag-listen-${channel}` });
    next.on('notification', (message) => {
      if (message.channel !== channel || message.payload === undefined) return;
      // Called at once, not in a later task: its synchronous part runs before a sync() round trip
      // whose reply came after this notification resolves (pg emits messages in arrival order).
      const failed = (error: unknown) => logger.error({ err: error, channel }, 'notification handler failed');
      try {
        Promise.resolve(handler(message.payload)).catch(failed);
      } catch (error) {
        failed(error);
      }
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

  /** The round trip under way, and the one the callers that came meanwhile wait for. */
  let inFlight: Promise<boolean> | undefined;
  let queued: Promise<boolean> | undefined;
  const roundTrip = async (): Promise<boolean> => {
    const listening = client;
    if (listening === undefined) return false;
    let timer: NodeJS.Timeout | undefined;
    // A connection that hangs (no reset, a stopped backend) must not hold the callers: after
    // syncTimeoutMs they are told false and read what they need elsewhere. The false waits for
    // the event loop's next poll (setImmediate runs after it): when this process itself was
    // stalled past the limit (a loaded machine), the reply that came meanwhile is read first and
    // wins, as timers run before the loop reads its sockets.
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => setImmediate(() => resolve(false)), syncTimeoutMs);
    });
    // An empty query: the cheapest command PostgreSQL answers with ReadyForQuery. A failure is
    // false (the connection's 'error' listener reconnects and says so through onListening), also
    // when it comes after the time-out.
    const answered = listening.query('').then(
      () => client === listening,
      () => false,
    );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
  const sync = (): Promise<boolean> => {
    if (inFlight === undefined) {
      inFlight = roundTrip().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    }
    // One under way began before this call: this caller needs the next one.
    queued ??= inFlight.then(() => {
      queued = undefined;
      return sync();
    });
    return queued;
  };

  await connect();
  return {
    sync,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
