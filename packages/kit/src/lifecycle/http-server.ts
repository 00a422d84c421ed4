/**
 * Listening and closing an HTTP server the graceful way, so a replica can stop without failing a
 * request (docs/adr/0057):
 *
 * 1. drain (`drainMs`, SHUTDOWN_DRAIN_MS): the server still accepts and answers, but every answer
 *    carries `Connection: close`, so each client leaves it after the request it sent and connects
 *    anew (to a replica still ready: readiness is off by then). A client that stays idle all along
 *    drops its connection itself once the keep-alive timeout it was told has passed.
 * 2. close: it stops accepting, idle keep-alive sockets are closed at once, in-flight requests
 *    finish (their answers carry `Connection: close` too, so nobody sends another request on a
 *    socket about to close) until the deadline, after which the remaining sockets are cut.
 *
 * Only servers started with listen() below know the drain (it registers the request listener that
 * marks their answers).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Servers that are draining or closing: their answers close the connection. */
const leaving = new WeakSet<Server>();
/** Answers not yet sent of each server started with listen(). */
const unanswered = new WeakMap<Server, Set<ServerResponse>>();

export interface CloseServerOptions {
  /** How long the server keeps answering (each answer closing its connection) before it stops accepting. */
  drainMs?: number;
  /** How long in-flight requests may take once it stopped accepting; then their sockets are cut. */
  timeoutMs?: number;
}

export async function listen(server: Server, port: number, host?: string): Promise<number> {
  trackAnswers(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Drains, then closes (see the header). A number is the old form: the timeout, no drain. */
export async function closeServer(server: Server, options: CloseServerOptions | number = {}): Promise<void> {
  const { drainMs = 0, timeoutMs = 5_000 } = typeof options === 'number' ? { timeoutMs: options } : options;
  if (!server.listening) return;
  leaving.add(server);
  for (const res of unanswered.get(server) ?? []) closeAfter(res);
  if (drainMs > 0) await sleep(drainMs);
  const closed = new Promise<void>((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
}

/** Registered first, before any application listener: every answer is known until it is sent. */
function trackAnswers(server: Server): void {
  if (unanswered.has(server)) return;
  const open = new Set<ServerResponse>();
  unanswered.set(server, open);
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (leaving.has(server)) closeAfter(res);
    open.add(res);
    const forget = () => open.delete(res);
    res.once('finish', forget);
    res.once('close', forget);
  });
}

/** The answer, unless its head is gone already, tells the client the connection ends with it. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
}
