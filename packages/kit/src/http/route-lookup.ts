/**
 * Find the route in the contracts' route table (HEAD is looked up as GET). Unknown paths and a
 * doubled `/api/v1` prefix get 404 ROUTE_NOT_FOUND with a hint naming the right path; a known
 * path with another method gets 405 with Allow. Nothing is ever redirected. A server that serves
 * only some routes of the table (the proxy) says which; the others are unknown to it.
 */
import type { RouteDefinition } from '@pag/contracts';
import { API_PREFIX, AppError, matchRoute } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { resourceState } from './state.ts';

export interface RouteLookupOptions {
  /** The routes this server answers (all of the table when absent). */
  serves?: (route: RouteDefinition) => boolean;
}

export function routeLookup(options: RouteLookupOptions = {}): RequestHandler {
  const { serves } = options;
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const match = matchRoute(method, path);
    if (match === null) {
      next(
        new AppError('ROUTE_NOT_FOUND', `No endpoint at ${req.method} ${path}.`, {
          hint: suggestPath(method, path),
        }),
      );
      return;
    }
    if ('methodMismatch' in match) {
      const allow = match.methodMismatch.join(', ');
      next(
        new AppError('METHOD_NOT_ALLOWED', `${path} does not accept ${req.method}; it accepts ${allow}.`, {
          headers: { allow },
        }),
      );
      return;
    }
    if (serves !== undefined && !serves(match.route)) {
      next(new AppError('ROUTE_NOT_FOUND', `No endpoint at ${req.method} ${path}.`));
      return;
    }
    const state = resourceState(res);
    state.route = match.route;
    state.params = match.params;
    next();
  };
}

/** Names the path the caller most likely meant, or where the list of endpoints is. */
export function suggestPath(method: string, path: string): string {
  const candidates: string[] = [];
  const doubled = `${API_PREFIX}${API_PREFIX}`;
  if (path.startsWith(doubled)) candidates.push(path.slice(API_PREFIX.length));
  if (path.length > 1 && path.endsWith('/')) candidates.push(path.replace(/\/+$/, ''));
  if (!path.startsWith(API_PREFIX)) candidates.push(`${API_PREFIX}${path}`);
  for (const candidate of candidates) {
    const match = matchRoute(method, candidate);
    if (match !== null && !('methodMismatch' in match)) {
      return `Use ${method} ${candidate}: the base URL is used exactly as given and every path starts with ${API_PREFIX} once. GET ${API_PREFIX}/ lists every endpoint.`;
    }
  }
  return `GET ${API_PREFIX}/ lists every endpoint; paths start with ${API_PREFIX} exactly once and are not redirected.`;
}
