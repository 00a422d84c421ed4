/**
 * Listening and closing an HTTP server the graceful way: close() stops accepting, idle
 * keep-alive sockets are closed at once, in-flight requests finish until the deadline, after
 * which the remaining sockets are cut.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(server: Server, port: number, host?: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function closeServer(server: Server, timeoutMs = 5_000): Promise<void> {
  if (!server.listening) return;
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
