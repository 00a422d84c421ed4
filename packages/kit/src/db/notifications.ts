/**
 * PostgreSQL LISTEN/NOTIFY: how a process that shares only the database with a service (an
 * operator command next to a running stack whose bus is in memory) tells it something at once.
 *
 * listenForNotifications hands each payload of a channel to the handler. Every listener of a
 * process on the same database URL shares one dedicated connection that LISTENs on all their
 * channels (docs/adr/0080: the embedded stack's four listeners held four idle backends, about
 * 2.5 MB of PostgreSQL each); it opens with the first listener and ends with the last. When it
 * drops it reconnects (1 s, doubling, at most 30 s) and LISTENs again. Notifications sent while
 * it was down are lost, as NOTIFY's are: use it for hints whose absence is bounded (e.g. a cache
 * entry that expires by itself), or say through `onListening` when it is not listening (false
 * when the connection drops, true once LISTEN runs again), so a cache can stop answering from
 * memory while changes could go unheard.
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
 * many callers under load, as a group commit), whichever listener of the connection they call.
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
  /**
   * How long sync() waits for its round trip before it answers false (default 1 s). A caller
   * sharing a round trip another listener of the connection began waits as long as that one.
   */
  syncTimeoutMs?: number;
}): Promise<NotificationListener> {
  const { databaseUrl, channel, handler, logger, onListening, syncTimeoutMs = 1_000 } = options;
  if (!CHANNEL.test(channel)) throw new Error(`invalid channel name: ${channel}`);
  let session = sessions.get(databaseUrl);
  if (session === undefined) {
    session = new ListeningSession(databaseUrl, logger);
    sessions.set(databaseUrl, session);
  }
  const subscriber: Subscriber = { channel, handler, logger, onListening };
  await session.add(subscriber);
  const joined = session;
  let closed = false;
  return {
    sync: () => (closed ? Promise.resolve(false) : joined.sync(syncTimeoutMs)),
    async close() {
      if (closed) return;
      closed = true;
      await joined.remove(subscriber);
    },
  };
}

interface Subscriber {
  channel: string;
  handler: (payload: string) => Promise<void> | void;
  logger: Logger;
  onListening?: ((listening: boolean) => void) | undefined;
}

/** The listening connection of each database URL this process listens on. */
const sessions = new Map<string, ListeningSession>();

/** Named, so an operator (or a test) finds the listening session in pg_stat_activity. */
const applicationName = (channels: readonly string[]) => `pag-listen-${channels.join(',')}`;

class ListeningSession {
  readonly #databaseUrl: string;
  readonly #logger: Logger;
  readonly #subscribers = new Set<Subscriber>();
  #client: pg.Client | undefined;
  /** Connecting, LISTEN and UNLISTEN, one at a time, in the order asked. */
  #steps: Promise<void> = Promise.resolve();
  #retryMs = 1000;
  #timer: NodeJS.Timeout | undefined;
  /** The round trip under way, and the one the callers that came meanwhile wait for. */
  #inFlight: Promise<boolean> | undefined;
  #queued: Promise<boolean> | undefined;

  constructor(databaseUrl: string, logger: Logger) {
    this.#databaseUrl = databaseUrl;
    this.#logger = logger;
  }

  /** Listens on the subscriber's channel too; rejects (without it) when that fails. */
  add(subscriber: Subscriber): Promise<void> {
    return this.#serially(async () => {
      // A listener that came while the last one closed revives the session.
      if (!sessions.has(this.#databaseUrl)) sessions.set(this.#databaseUrl, this);
      const heard = this.#channels().includes(subscriber.channel);
      this.#subscribers.add(subscriber);
      try {
        if (this.#client === undefined) {
          clearTimeout(this.#timer);
          this.#timer = undefined;
          await this.#connect();
          return;
        }
        if (!heard) {
          await this.#client.query(`LISTEN ${subscriber.channel}`);
          await this.#rename();
        }
        subscriber.onListening?.(true);
      } catch (error) {
        this.#subscribers.delete(subscriber);
        if (this.#subscribers.size === 0) await this.#end();
        else if (this.#client === undefined) this.#schedule();
        throw error;
      }
    });
  }

  remove(subscriber: Subscriber): Promise<void> {
    return this.#serially(async () => {
      if (!this.#subscribers.delete(subscriber)) return;
      if (this.#subscribers.size === 0) return this.#end();
      if (this.#channels().includes(subscriber.channel)) return;
      // Best effort: a notification of a channel nobody listens on any more is dropped anyway.
      await this.#client?.query(`UNLISTEN ${subscriber.channel}`).catch(() => {});
      await this.#rename().catch(() => {});
    });
  }

  sync(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === undefined) {
      this.#inFlight = this.#roundTrip(timeoutMs).finally(() => {
        this.#inFlight = undefined;
      });
      return this.#inFlight;
    }
    // One under way began before this call: this caller needs the next one.
    this.#queued ??= this.#inFlight.then(() => {
      this.#queued = undefined;
      return this.sync(timeoutMs);
    });
    return this.#queued;
  }

  async #roundTrip(timeoutMs: number): Promise<boolean> {
    const listening = this.#client;
    if (listening === undefined) return false;
    let timer: NodeJS.Timeout | undefined;
    // A connection that hangs (no reset, a stopped backend) must not hold the callers: after
    // timeoutMs they are told false and read what they need elsewhere. The false waits for the
    // event loop's next poll (setImmediate runs after it): when this process itself was stalled
    // past the limit (a loaded machine), the reply that came meanwhile is read first and wins, as
    // timers run before the loop reads its sockets.
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => setImmediate(() => resolve(false)), timeoutMs);
    });
    // An empty query: the cheapest command PostgreSQL answers with ReadyForQuery. A failure is
    // false (the connection's 'error' listener reconnects and says so through onListening), also
    // when it comes after the time-out.
    const answered = listening.query('').then(
      () => this.#client === listening,
      () => false,
    );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection's application_name names the channels it listens on now. */
  async #rename(): Promise<void> {
    await this.#client?.query(`SELECT set_config('application_name', $1, false)`, [
      applicationName(this.#channels()),
    ]);
  }

  #channels(): string[] {
    return [...new Set([...this.#subscribers].map((subscriber) => subscriber.channel))];
  }

  #serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#steps.then(step);
    this.#steps = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** Opens the connection, LISTENs on every channel and tells every subscriber. */
  async #connect(): Promise<void> {
    const channels = this.#channels();
    const next = new pg.Client({
      connectionString: this.#databaseUrl,
      application_name: applicationName(channels),
    });
    next.on('notification', (message) => this.#deliver(message));
    next.on('error', (error) => {
      // A connection still being set up fails through #connect's rejection instead.
      if (this.#client !== next) return;
      this.#client = undefined;
      for (const subscriber of this.#subscribers) subscriber.onListening?.(false);
      this.#logger.warn({ err: error, channels }, 'notification connection lost; reconnecting');
      void next.end().catch(() => {});
      this.#schedule();
    });
    try {
      await next.connect();
      // Each channel name was checked: a plain identifier.
      for (const channel of channels) await next.query(`LISTEN ${channel}`);
    } catch (error) {
      void next.end().catch(() => {});
      throw error;
    }
    this.#client = next;
    this.#retryMs = 1000;
    for (const subscriber of this.#subscribers) subscriber.onListening?.(true);
  }

  #deliver(message: pg.Notification): void {
    const { channel, payload } = message;
    if (payload === undefined) return;
    for (const subscriber of this.#subscribers) {
      if (subscriber.channel !== channel) continue;
      // Called at once, not in a later task: its synchronous part runs before a sync() round trip
      // whose reply came after this notification resolves (pg emits messages in arrival order).
      const failed = (error: unknown) =>
        subscriber.logger.error({ err: error, channel }, 'notification handler failed');
      try {
        Promise.resolve(subscriber.handler(payload)).catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }

  #schedule(): void {
    if (this.#subscribers.size === 0 || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#serially(async () => {
        if (this.#client !== undefined || this.#subscribers.size === 0) return;
        try {
          await this.#connect();
        } catch (error) {
          this.#logger.warn(
            { err: error, channels: this.#channels(), retryMs: this.#retryMs },
            'notification listener could not reconnect',
          );
          this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
          this.#schedule();
        }
      });
    }, this.#retryMs);
    this.#timer.unref();
  }

  /** The last listener left: the connection ends and the next listener opens another. */
  async #end(): Promise<void> {
    if (sessions.get(this.#databaseUrl) === this) sessions.delete(this.#databaseUrl);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const last = this.#client;
    this.#client = undefined;
    await last?.end().catch(() => {});
  }
}
