/**
 * The auth service answers the gateway only, and believes only the gateway about the client.
 *
 * Every path (OAuth endpoints, discovery, sign-up, login, the dashboard, /auth.md) is public
 * through the gateway, which audits it, limits it and sets X-Forwarded-For from the socket. Reached
 * directly on the internal port, the same paths would skip all of that and let a caller name any
 * client address (login throttling keys on it), so a request must carry the gateway's proof
 * (pag-gateway-proof, kit's gateway-proof.ts) or it is 403 GATEWAY_ONLY.
 *
 * One exception: RFC 7662 introspection (POST), which resource servers (the gateway, the proxy)
 * call directly, authenticated by their own client credentials (introspection.ts). It never
 * depends on the client's address, and X-Forwarded-For and its kin are removed from every request
 * that has no valid proof, so nothing downstream (koa's ctx.ip, oidc-provider) can believe them.
 *
 * With no secret configured (a service started in-process without a gateway in front, in its own
 * tests) no proof is asked, and still no X-Forwarded-For believed.
 */
import { AppError, GATEWAY_PROOF_HEADER, MessageHeaders } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { verifyGatewayRequest } from '@pag/kit';
import type { Middleware } from 'koa';

const CLIENT_ADDRESS_HEADERS = ['x-forwarded-for', 'x-real-ip', 'forwarded'] as const;

export function gatewayOnly(
  secret: string | undefined,
  introspectionPath: string,
  logger: Logger,
): Middleware {
  return (ctx, next) => {
    const verdict =
      secret === undefined
        ? 'missing'
        : verifyGatewayRequest(
            secret,
            { method: ctx.method, path: ctx.originalUrl, requestId: ctx.get(MessageHeaders.requestId) },
            ctx.get(GATEWAY_PROOF_HEADER),
          );
    if (verdict === 'valid') return next();
    for (const name of CLIENT_ADDRESS_HEADERS) delete ctx.req.headers[name];
    const introspection = ctx.method === 'POST' && ctx.path === introspectionPath;
    if (secret === undefined || introspection) return next();
    logger.warn(
      { verdict, peer: ctx.req.socket.remoteAddress, path: ctx.path },
      'request without gateway proof refused',
    );
    throw new AppError(
      'GATEWAY_ONLY',
      `The auth service answers the gateway only (gateway proof ${verdict}).`,
    );
  };
}
