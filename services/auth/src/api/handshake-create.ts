/**
 * auth.handshake.create (POST /api/v1/handshakes, no token): records the request within the
 * creation limits, keyed by the caller's address as the gateway saw it; 201 with the claim URL,
 * how the token will come (pickup with a codeChallenge, else the owner shares it) and how often
 * to poll.
 */
import { AuthEndpoints, HANDSHAKE_POLL_INTERVAL_SECONDS } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const handshakeCreate = handle(
  AuthEndpoints.handshakeCreate,
  async (caller, { body }, { handshakes }: AuthHandlerDeps) => {
    const { handshake, claimUrl } = await handshakes.create({
      agentRef: body.agentId,
      requestedScopes: body.requestedScopes,
      message: body.message,
      // Without the gateway's header every caller shares one bucket: stricter, never looser.
      clientAddress: caller.clientAddress ?? 'unknown',
      // The schema accepts a challenge only with its method, S256.
      codeChallenge: body.codeChallenge,
    });
    const tokenDelivery = handshake.codeChallenge === null ? ('owner' as const) : ('pickup' as const);
    caller.logger.info(
      { handshakeId: handshake.id, assigned: handshake.accountId !== null, tokenDelivery },
      'handshake created',
    );
    return {
      handshakeId: handshake.id,
      status: 'pending' as const,
      claimUrl,
      tokenDelivery,
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    };
  },
);
