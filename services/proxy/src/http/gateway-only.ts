/**
 * Step 0: the proxy answers the gateway only. A request reaching the proxy's port some other way
 * would skip the gateway's per-agent limits, its audit and its client-address rules, and still be
 * sent on with the owner's credential; so every request must carry the gateway's proof
 * (pag-gateway-proof: an HMAC under GATEWAY_SECRET over the method, path, request id and time,
 * kit's gateway-proof.ts). Without it: 403 GATEWAY_ONLY before the route, the token or the vault
 * is looked at.
 */
import { AppError, GATEWAY_PROOF_HEADER, MessageHeaders } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { verifyGatewayRequest } from '@pag/kit';
import type { NextFunction, Request, Response } from 'express';

export function gatewayOnly(secret: string, logger: Logger) {
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
      new AppError('GATEWAY_ONLY', `The proxy service answers the gateway only (gateway proof ${verdict}).`),
    );
  };
}
