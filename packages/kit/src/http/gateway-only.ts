/**
 * For a server behind the gateway: it answers the gateway only. A request reaching its port some
 * other way would skip the gateway's per-agent limits, its audit and its client-address rules;
 * so every request must carry the gateway's proof (pag-gateway-proof: an HMAC under
 * GATEWAY_SECRET over the method, path, request id and time, ../auth/gateway-proof.ts). Without
 * it: 403 GATEWAY_ONLY before the route or the token is looked at.
 */
import { AppError, GATEWAY_PROOF_HEADER, MessageHeaders } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { verifyGatewayRequest } from '../auth/gateway-proof.ts';
import type { Logger } from '../log/logger.ts';

export function gatewayOnly(service: string, secret: string, logger: Logger): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const verdict = verifyGatewayRequest(
      secret,
      { method: req.method, path: req.originalUrl, requestId: req.get(MessageHeaders.requestId) ?? '' },
      req.get(GATEWAY_PROOF_HEADER),
    );
    if (verdict === 'valid') {
      next();
      return;
    }
    logger.warn(
      { verdict, peer: req.socket.remoteAddress, path: req.path },
      'request without gateway proof refused',
    );
    next(
      new AppError(
        'GATEWAY_ONLY',
        `The ${service} service answers the gateway only (gateway proof ${verdict}).`,
      ),
    );
  };
}
