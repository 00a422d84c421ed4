/**
 * The floor of the proxied call on Node (docs/adr/0074): a bare forwarder, a node:http server that
 * sends every request to the upstream's UPSTREAM_PATH over a keep-alive Agent and pipes the
 * answer back, and nothing else (no routing, token, scope, credential, header policy, limits,
 * audit or metrics). Set beside the stack's gateway and proxy in `pnpm bench` (bench/run.ts), it
 * tells what Node's own HTTP forwarding costs on this machine from what the pipeline adds.
 * Usage: node bench/node-forwarder.ts <upstream URL with the path>; prints `ready: <url>` once
 * listening.
 */
import { Agent, createServer, request } from 'node:http';
import { serveReady } from './serve-ready.ts';

const upstream = new URL(process.argv[2] as string);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const server = createServer((req, res) => {
  const call = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: upstream.pathname,
      method: req.method,
      agent,
      headers: { accept: 'application/json' },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, {
        'content-type': answer.headers['content-type'],
        'content-length': answer.headers['content-length'],
      });
      answer.pipe(res);
    },
  );
  call.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(call);
});
serveReady(server);
