/**
 * The gateway as a unit the embedded stack and main.ts both start: listen, then serve the app
 * built for the URL actually bound (so PORT=0 works in tests), and close gracefully.
 */

import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { Bus, Logger, Metrics } from '@pag/kit';
import { closeServer, IntrospectionClient, listen } from '@pag/kit';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';
import { kitIntrospector } from './pipeline/kit-introspector.ts';

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
  const introspection = await startIntrospection(deps);
  let port: number;
  try {
    port = await listen(server, config.port, config.host);
  } catch (error) {
    await introspection?.close();
    throw error;
  }
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const introspector = introspection === undefined ? undefined : kitIntrospector(introspection);
  const app = createApp({ config: { ...config, publicUrl }, bus, logger, metrics, introspector });
  server.on('request', app);
  logger.info({ port, publicUrl, authUrl: config.authUrl }, 'gateway listening');

  const close = async () => {
    await closeServer(server);
    await introspection?.close();
  };
  return { publicUrl, port, server, close, [Symbol.asyncDispose]: close };
}

/** The introspection client when the auth service and the gateway's credentials are configured. */
async function startIntrospection(deps: GatewayDeps): Promise<IntrospectionClient | undefined> {
  const { authUrl, introspection } = deps.config;
  if (authUrl === undefined || introspection === undefined) return undefined;
  return IntrospectionClient.create({
    authUrl,
    clientId: introspection.clientId,
    clientSecret: introspection.clientSecret,
    cacheMs: introspection.cacheMs,
    bus: deps.bus,
    logger: deps.logger,
  });
}
