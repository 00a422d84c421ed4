/**
 * auth.handshake.create (POST /api/v1/handshakes, no token): records the request within the
 * creation limits, keyed by the caller's address as the gateway saw it; 201 with the claim URL.
 */
import { AuthEndpoints } from '@pag/contracts';
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
    });
    caller.logger.info(
      { handshakeId: handshake.id, assigned: handshake.accountId !== null },
      'handshake created',
    );
    return { handshakeId: handshake.id, status: 'pending' as const, claimUrl };
  },
);
