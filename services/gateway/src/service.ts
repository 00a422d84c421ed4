/**
 * The gateway as a unit the embedded stack and main.ts both start: listen, then serve the app
 * built for the URL actually bound (so PORT=0 works in tests), and close gracefully.
 */

import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { Bus, Logger, Metrics } from '@pag/kit';
import { closeServer, listen } from '@pag/kit';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  bus: Bus;
  logger: Logger;
  /** The process's metrics registry (shared by every service in embedded mode). */
  metrics: Metrics;
}

export interface RunningGateway extends AsyncDisposable {
  readonly publicUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

export async function startGateway(deps: GatewayDeps): Promise<RunningGateway> {
  const { config, bus, logger, metrics } = deps;
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 });
  server.keepAliveTimeout = 5_000;
  const port = await listen(server, config.port, config.host);
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const app = createApp({ config: { ...config, publicUrl }, bus, logger, metrics });
  server.on('request', app);
  logger.info({ port, publicUrl }, 'gateway listening');

  const close = () => closeServer(server);
  return { publicUrl, port, server, close, [Symbol.asyncDispose]: close };
}
