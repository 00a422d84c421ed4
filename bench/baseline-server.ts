/**
 * The baseline: a bare node:http server answering a fixed body, run as its own process so it
 * is measured like the stack. Usage: node bench/baseline-server.ts <file with the body>
 * Prints `ready: <url>` once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { serveReady } from './serve-ready.ts';

const body = readFileSync(process.argv[2] as string);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
serveReady(server);
