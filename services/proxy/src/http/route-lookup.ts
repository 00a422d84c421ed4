/**
 * Step 1: the proxy serves only the contracts' proxy routes (`/api/v1/services/:service/*path`,
 * GET, POST, PUT, PATCH, DELETE), matched with the same matcher as the gateway, so both agree on
 * the service, the rest of the path and the scope it needs (read or write from the contracts'
 * connector-access table, not from the method alone). Anything else is 404 ROUTE_NOT_FOUND;
 * another method on a proxy path is 405 with Allow.
 */
import { AppError, matchRoute, requiredScope } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function routeLookup(req: Request, res: Response, next: NextFunction): void {
  const match = matchRoute(req.method, req.originalUrl);
  if (
    match === null ||
    ('route' in match && (match.route.service !== 'proxy' || match.route.subject !== null))
  ) {
    next(new AppError('ROUTE_NOT_FOUND', `No endpoint at ${req.path}.`));
    return;
  }
  if ('methodMismatch' in match) {
    next(
      new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}.`, {
        headers: { allow: match.methodMismatch.join(', ') },
      }),
    );
    return;
  }
  const { route, params } = match;
  const current = state(res);
  current.routeId = route.id;
  current.serviceName = params.service;
  current.restOfPath = params.path ?? '';
  current.requiredScope = requiredScope(route, params, req.method) ?? undefined;
  next();
}
