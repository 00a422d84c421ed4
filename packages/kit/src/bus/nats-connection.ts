/**
 * Opens the NATS connection every bus process needs: named (it shows in the server's
 * connection list), reconnecting forever with a growing, jittered delay so a restarted server is
 * not hit by every client at once, and watched so readiness follows the connection state.
 * The first connect fails fast: a process that never reached NATS should exit and be restarted.
 * It signs in with the service's own credentials when configured, and takes its replies under an
 * inbox prefix of its own, so no other service's user may read them.
 */

import type { NatsConnection } from '@nats-io/transport-node';
import { backoff, connect } from '@nats-io/transport-node';
import type { Logger } from '../log/logger.ts';
import type { NatsCredentials } from './nats-credentials.ts';
import { natsAuthenticator } from './nats-credentials.ts';

/** Delay before each reconnect attempt; the last one repeats. */
const RECONNECT_POLICY_MS = [0, 250, 500, 1000, 2000, 5000];

export interface WatchedConnection {
  connection: NatsConnection;
  /** False while disconnected (reconnecting) and after close. */
  isConnected(): boolean;
}

export interface NatsConnectOptions {
  url: string;
  /** The connection name the server shows: the service, which is also its NATS user. */
  name: string;
  /** Unset: connect without signing in (a server without authorization). */
  credentials?: NatsCredentials | undefined;
  /** Where replies to this connection's requests land (contracts' natsInboxPrefix). */
  inboxPrefix?: string | undefined;
  logger: Logger;
}

export async function connectNats(options: NatsConnectOptions): Promise<WatchedConnection> {
  const { url, name, logger } = options;
  const authenticator =
    options.credentials === undefined ? undefined : await natsAuthenticator(options.credentials);
  const policy = backoff(RECONNECT_POLICY_MS);
  let attempts = 0;
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: url,
      name,
      ...(authenticator !== undefined && { authenticator }),
      ...(options.inboxPrefix !== undefined && { inboxPrefix: options.inboxPrefix }),
      maxReconnectAttempts: -1,
      // nats.js asks for the delay before every dial; it grows with the failed attempts seen below.
      reconnectDelayHandler: () => policy.backoff(attempts),
      // Without it, nats.js builds two Error objects (with stack traces) up front for every request
      // and JetStream publish, in case it fails: about a sixth of the gateway's CPU under load, as
      // every answer waits for its audit event's ack (bench/profile-notes.md). Our callers turn
      // every failure into an AppError naming the subject anyway.
      noAsyncTraces: true,
    });
  } catch (error) {
    const where = url.replace(/\/\/[^@/]*@/, '//');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot connect to NATS at ${where}: ${reason}. Is NATS_URL right and the server up?`, {
      cause: error,
    });
  }
  let connected = true;
  void (async () => {
    for await (const status of connection.status()) {
      switch (status.type) {
        case 'disconnect':
          connected = false;
          logger.warn({ server: status.server }, 'NATS disconnected; reconnecting');
          break;
        case 'reconnecting':
          attempts++;
          break;
        case 'reconnect':
          connected = true;
          attempts = 0;
          logger.info({ server: status.server }, 'NATS reconnected');
          break;
        case 'error':
          logger.error({ err: status.error }, 'NATS connection error');
          break;
        default:
          break;
      }
    }
  })();
  return {
    connection,
    isConnected: () => connected && !connection.isClosed() && !connection.isDraining(),
  };
}
