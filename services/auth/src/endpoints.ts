/**
 * The auth service's answers on the bus (AuthEndpoints), one handler file each under api/,
 * served by kit's serveEndpoints: the routes the gateway dispatches to it without a token
 * (handshakes, device registration) and what other services ask of it (accounts, the grant of
 * a trigger's agent). A message is
 * only as trustworthy as its sender, so serveEndpoints checks each body again.
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import { accountGet } from './api/account-get.ts';
import { agentGrant } from './api/agent-grant.ts';
import type { AuthHandlerDeps } from './api/auth-handler-deps.ts';
import { deviceRegister } from './api/device-register.ts';
import { handshakeCreate } from './api/handshake-create.ts';
import { handshakeStatus } from './api/handshake-status.ts';

export const authEndpoints: readonly EndpointHandler<AnyEndpoint, AuthHandlerDeps>[] = [
  handshakeCreate,
  handshakeStatus,
  deviceRegister,
  accountGet,
  agentGrant,
];
