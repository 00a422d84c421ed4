/**
 * The gateway's express app: one visible pipeline of small steps, each in its own module.
 *
 *   request id → metrics → security headers → audit (one event per request, acknowledged before
 *   the answer) → request target a path (origin-form) → auth service's paths (forwarded) →
 *   route lookup → body → validation → authentication (rejected tokens budgeted per address) → plan → scope → usage count and
 *   limits → dispatch → error handler
 *
 * The MCP endpoint (mcp/mcp-endpoint.ts) is a route like the others, and each of its tool calls is
 * a request to this same server (mcp/tool-calls.ts): through every step above.
 *
 * The steps every resource server shares (request id, metrics, route lookup, authentication,
 * scope, error handler) are the kit's (docs/adr/0032-one-resource-server-pipeline.md); the rest
 * are the gateway's own, in src/pipeline/.
 */
import type { AppError } from '@pag/contracts';
import type { Bus, InProcessEntry, Logger, Metrics, ServiceDirectory } from '@pag/kit';
import { authenticate, checkScope, errorHandler, observe, requestId, routeLookup, runSteps } from '@pag/kit';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import type { GatewayConfig } from './config.ts';
import { mcpEndpoint } from './mcp/mcp-endpoint.ts';
import { ToolCalls } from './mcp/tool-calls.ts';
import { audit, recordAuditReason } from './pipeline/audit.ts';
import type { AuthFailureBudget, Introspector } from './pipeline/authenticate.ts';
import { checkPlan } from './pipeline/check-plan.ts';
import { countUsage } from './pipeline/count-usage.ts';
import { dispatch } from './pipeline/dispatch.ts';
import { forwardAuth } from './pipeline/forward-auth.ts';
import { forwardProxy } from './pipeline/forward-proxy.ts';
import { handToProxy } from './pipeline/hand-to-proxy.ts';
import { jsonBody } from './pipeline/json-body.ts';
import { originForm } from './pipeline/origin-form.ts';
import { routeHeaders, securityHeaders } from './pipeline/security-headers.ts';
import { state } from './pipeline/state.ts';
import { validateBody } from './pipeline/validate-body.ts';
import { gatewayContextHandler } from './routes/gateway-context.ts';
import { publicDocumentHandlers } from './routes/public-documents.ts';
import { tokenCapabilitiesHandler } from './routes/token-capabilities.ts';
import type { UsageCharger } from './store/usage-charger.ts';

export interface AppDeps {
  config: GatewayConfig & { publicUrl: string };
  bus: Bus;
  logger: Logger;
  metrics: Metrics;
  /** Token validation; undefined while no auth service is reachable (bearer routes answer 503). */
  introspector?: Introspector;
  /** Rejected tokens per client address; undefined without a database (then no introspection either). */
  authFailures?: AuthFailureBudget;
  /** The services running now (live discovery over the bus): documents and 503s follow it. */
  directory: ServiceDirectory;
  /** Where authenticated requests are counted; undefined without a database (they answer 503). */
  charger?: UsageCharger;
  /**
   * The proxy's in-process entry when it runs in this process (the embedded stack): its routes are
   * handed to it instead of forwarded to PROXY_URL (pipeline/hand-to-proxy.ts, docs/adr/0069).
   */
  proxy?: InProcessEntry;
}

export function createApp(deps: AppDeps): Express {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client's address: the socket's, unless TRUST_PROXY names the proxies in front of us; a
  // client's own X-Forwarded-For is never believed (express's req.ip follows this setting).
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  const toolCalls = new ToolCalls();
  const { directory } = deps;
  const local = publicDocumentHandlers({ publicUrl: config.publicUrl, directory });
  local.set('tokenCapabilities', tokenCapabilitiesHandler(directory));
  const mcp = mcpEndpoint({ toolCalls, publicUrl: config.publicUrl, logger: deps.logger });
  local.set('mcp', mcp);
  local.set('mcpAtBase', mcp);
  local.set(
    'gatewayContext',
    gatewayContextHandler({
      bus: deps.bus,
      directory,
      partTimeoutMs: config.contextPartTimeoutMs,
      logger: deps.logger,
    }),
  );
  const forward = new Map<string, RequestHandler>();
  if (deps.proxy !== undefined) {
    forward.set('proxy', handToProxy(deps.proxy));
  } else if (config.proxyUrl !== undefined) {
    const { publicUrl, proxyUrl, dispatchTimeoutMs: timeoutMs, gatewaySecret } = config;
    if (gatewaySecret === undefined) throw new Error('GATEWAY_SECRET is required with PROXY_URL');
    forward.set(
      'proxy',
      forwardProxy({ publicUrl, proxyUrl, timeoutMs, gatewaySecret, logger: deps.logger }),
    );
  }

  const steps: RequestHandler[] = [
    requestId,
    toolCalls.acceptToolCallOrigin,
    observe(deps.metrics, 'gateway', metricRoute),
    securityHeaders(config.publicUrl),
    audit({ bus: deps.bus, logger: deps.logger }),
    originForm,
    forwardAuth({
      publicUrl: config.publicUrl,
      authUrl: config.authUrl,
      timeoutMs: config.dispatchTimeoutMs,
      gatewaySecret: config.gatewaySecret,
      logger: deps.logger,
    }),
    routeLookup(),
    routeHeaders,
    jsonBody(config.bodyLimitBytes),
    validateBody,
    authenticate({
      publicUrl: config.publicUrl,
      introspector: deps.introspector,
      failures: deps.authFailures,
    }),
    checkPlan,
    checkScope(config.publicUrl),
    countUsage(deps.charger, deps.logger),
    dispatch({
      bus: deps.bus,
      directory,
      timeoutMs: config.dispatchTimeoutMs,
      logger: deps.logger,
      local,
      forward,
    }),
  ];
  const failures = errorHandler({ logger: deps.logger, publicUrl: config.publicUrl, onError: auditReason });
  // The steps in order by kit's runSteps behind one layer of the app's router, not one layer each:
  // express 5's router did per step what no step here needs (the path parsed and matched, the
  // layer's prefix trimmed and restored, a promise check), sixteen times a request (docs/adr/0076).
  // Same contract: next(error), a throw or a rejected promise go to the error step; after the
  // last step the request goes on to express's final handler (404), as before.
  const pipeline = runSteps(steps, failures);
  app.use((req: Request, res: Response, next: NextFunction) => pipeline(req, res, next));
  return app;
}

/** The route label of the request's duration: its route's id, else where it was forwarded. */
function metricRoute(res: Response): string {
  const { route, forwardedTo } = state(res);
  return route?.id ?? (forwardedTo === undefined ? 'unmatched' : `forward:${forwardedTo}`);
}

/** The audit record of a refused or failed request names the error code it was answered with. */
function auditReason(res: Response, error: AppError): void {
  recordAuditReason(res, error.code);
}
