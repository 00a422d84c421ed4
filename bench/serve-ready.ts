/**
 * The end of a bench server's own process (baseline-server.ts, node-forwarder.ts,
 * express-forwarder.ts): keep-alive for 5 s, listen on a free loopback port, print the
 * `ready: <url>` line testkit's startReadyProcess waits for, close and exit on SIGTERM.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function serveReady(server: Server): void {
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`ready: http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
