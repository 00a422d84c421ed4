/**
 * auth.handshake.status (GET /api/v1/handshakes/:handshakeId/status, no token): pending (with the
 * poll interval), approved or denied, following the token; an unknown or malformed id is 404.
 * With the Handshake-Verifier header (the only client header the gateway forwards here): the
 * matching verifier collects the token of an approved handshake once; a wrong one is 403.
 */
import { AuthEndpoints, HANDSHAKE_VERIFIER_HEADER } from '@pag/contracts';
import { handle } from '@pag/kit';
import { readVerifier } from '../handshakes/pickup-proof.ts';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const handshakeStatus = handle(
  AuthEndpoints.handshakeStatus,
  async (caller, { params, headers }, { handshakes }: AuthHandlerDeps) => {
    const verifier = readVerifier(headers?.[HANDSHAKE_VERIFIER_HEADER]);
    const progress = await handshakes.status(params.handshakeId, { verifier, requestId: caller.requestId });
    if (progress.token !== undefined)
      caller.logger.info(
        { handshakeId: params.handshakeId, agentId: progress.token.agentId },
        'token collected',
      );
    return { handshakeId: params.handshakeId, ...progress };
  },
);
