/**
 * The baseline: a bare node:http server answering a fixed body, run as its own process so it
 * is measured like the stack. Usage: node bench/baseline-server.ts <file with the body>
 * Prints `ready: <url>` once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = readFileSync(process.argv[2] as string);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready: http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
