/**
 * auth.handshake.status (GET /api/v1/handshakes/:handshakeId/status, no token): pending,
 * approved or denied, following the token; an unknown or malformed id is 404.
 */
import { AuthEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const handshakeStatus = handle(
  AuthEndpoints.handshakeStatus,
  async (_caller, { params }, { handshakes }: AuthHandlerDeps) => ({
    handshakeId: params.handshakeId,
    status: await handshakes.status(params.handshakeId),
  }),
);
