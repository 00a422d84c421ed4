/**
 * The handshake API, answered on the bus for the gateway (no token needed):
 * - auth.handshake.create (POST /api/v1/handshakes): records the request within the creation
 *   limits, keyed by the caller's address as the gateway saw it; 201 with the claim URL;
 * - auth.handshake.status (GET /api/v1/handshakes/:handshakeId/status): pending, approved or
 *   denied, following the token; an unknown or malformed id is 404.
 * The gateway has validated the body already; it is parsed again here because a bus message is
 * only as trustworthy as whoever sent it.
 */
import type { DispatchRequest, HandshakeCreated, HandshakeStatus } from '@pag/contracts';
import { AppError, AuthSubjects, HandshakeCreateRequest, MessageHeaders } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export async function serveHandshakeApi({ bus, core, logger }: BusApiDeps): Promise<Subscription[]> {
  const { handshakes } = core;

  const create = async (msg: BusMessage<DispatchRequest>): Promise<HandshakeCreated> => {
    const parsed = HandshakeCreateRequest.safeParse(msg.data?.body);
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || 'body'))];
      throw new AppError('INVALID_REQUEST', `Invalid handshake request: ${fields.join(', ')}.`, {
        cause: parsed.error,
      });
    }
    const { handshake, claimUrl } = await handshakes.create({
      agentRef: parsed.data.agentId,
      requestedScopes: parsed.data.requestedScopes,
      message: parsed.data.message,
      // Without the gateway's header every caller shares one bucket: stricter, never looser.
      clientAddress: msg.headers[MessageHeaders.clientAddress] ?? 'unknown',
    });
    logger.info(
      {
        requestId: msg.headers[MessageHeaders.requestId],
        handshakeId: handshake.id,
        assigned: handshake.accountId !== null,
      },
      'handshake created',
    );
    return { handshakeId: handshake.id, status: 'pending', claimUrl };
  };

  const status = async (msg: BusMessage<DispatchRequest>): Promise<HandshakeStatus> => {
    const handshakeId = msg.data?.params?.handshakeId ?? '';
    return { handshakeId, status: await handshakes.status(handshakeId) };
  };

  return [
    await bus.handle(AuthSubjects.handshakeCreate, create, QUEUE),
    await bus.handle(AuthSubjects.handshakeStatus, status, QUEUE),
  ];
}
