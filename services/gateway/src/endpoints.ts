/**
 * The gateway's answers on the bus (GatewayEndpoints), served by kit's serveEndpoints when the
 * usage counters exist (DATABASE_URL set).
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import type { GatewayHandlerDeps } from './handlers/gateway-deps.ts';
import { usageCharge } from './handlers/usage-charge.ts';
import { usageGet } from './handlers/usage-get.ts';

export const gatewayEndpoints: readonly EndpointHandler<AnyEndpoint, GatewayHandlerDeps>[] = [
  usageGet,
  usageCharge,
];
