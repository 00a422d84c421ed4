/**
 * The Node-only part of the SDK: the loopback redirect server an OAuth native app uses
 * (RFC 8252 section 7.3: http on 127.0.0.1, a port the system picks), and `connect` with it as
 * the default redirect receiver. Everything else is in the platform-neutral entry.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedirectReceiver } from './auth/oauth.ts';
import { type ConnectedClient, type ConnectOptions, connect as connectNeutral } from './connect.ts';

export * from './mod.ts';

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>Done</title><p>The agent received the answer; you can close this tab.</p>';

/** Listens on 127.0.0.1 on a free port for one request to /callback: the authorization response. */
export async function loopbackRedirect(path = '/callback'): Promise<RedirectReceiver> {
  let deliver: (url: URL) => void = () => undefined;
  const arrived = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== path) {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(PAGE);
    deliver(url);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    callback: () => arrived,
    close: async () => {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `connect` of the main entry; OAuth without `redirect` gets a loopback redirect server. */
export async function connect(baseUrl: string, options: ConnectOptions): Promise<ConnectedClient> {
  if ('oauth' in options && options.oauth.redirect === undefined)
    return connectNeutral(baseUrl, {
      ...options,
      oauth: { ...options.oauth, redirect: await loopbackRedirect() },
    });
  return connectNeutral(baseUrl, options);
}
