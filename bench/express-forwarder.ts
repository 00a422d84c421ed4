/**
 * The floor of the chosen libraries for the proxied call (docs/adr/0081): an express app whose one
 * middleware is http-proxy-middleware, configured as the proxy's forwarders are (kit's
 * FORWARDING_OPTIONS, the one proxyEventsPlugin, the target as a URL parsed once, a keep-alive
 * Agent), sending every request to the upstream's UPSTREAM_PATH, and nothing else: no routing,
 * token, scope, credential, header policy, limits, audit or metrics. Set beside the stack's
 * gateway and proxy in `pnpm bench` (bench/run.ts) between the bare Node forwarder and the stack,
 * it tells what express and http-proxy-middleware themselves cost on this machine from what the
 * pipeline adds. Usage: node bench/express-forwarder.ts <upstream URL with the path>; prints
 * `ready: <url>` once listening.
 */
import { Agent, createServer } from 'node:http';
import express from 'express';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import { FORWARDING_OPTIONS } from '../packages/kit/src/mod.ts';
import { serveReady } from './serve-ready.ts';

const upstream = new URL(process.argv[2] as string);
const app = express();
app.disable('x-powered-by');
app.use(
  createProxyMiddleware({
    target: new URL(upstream.origin),
    ...FORWARDING_OPTIONS,
    plugins: [proxyEventsPlugin],
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    pathRewrite: () => upstream.pathname,
    on: {
      error: (_error, _req, res) => {
        if ('writeHead' in res && !res.headersSent) res.writeHead(502);
        res.end();
      },
    },
  }),
);
const server = createServer(app);
serveReady(server);
