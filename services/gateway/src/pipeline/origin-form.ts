/**
 * The request target must be a path (origin-form, RFC 9112 §3.2.1): `GET /api/v1/… HTTP/1.1`
 * with the host in the Host header. The absolute form (`GET http://other.example/api/v1/…`) is
 * what clients send to a forward proxy, which this server is not; a request naming another host
 * is not ours to answer, and the steps after this one (express's req.path, the forwarders, the
 * in-process handover to the proxy: docs/adr/0069) would each read such a target differently.
 * So it is 400 INVALID_REQUEST before any of them runs, recorded by the audit step like every
 * answer. (`OPTIONS *`, the asterisk form, is left to the route lookup's 404.)
 */
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';

export function originForm(req: Request, _res: Response, next: NextFunction): void {
  if (req.url.startsWith('/') || req.url === '*') {
    next();
    return;
  }
  next(
    new AppError('INVALID_REQUEST', 'The request target must be a path, not an absolute URL.', {
      hint: 'Send the path alone (GET /api/v1/…) with the host in the Host header; this server is no forward proxy.',
    }),
  );
}
