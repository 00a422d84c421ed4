/**
 * The discovery documents the service serves itself (oidc-provider serves the RFC 8414 ones):
 * RFC 9728 protected-resource metadata of the API, the MCP endpoint and the base URL, and /auth.md. Public, built once from
 * PUBLIC_URL (never from the request), so they may be cached and fetched from any origin.
 */
import { Router } from '@koa/router';
import { authGuide } from './auth-guide.ts';
import { protectedResourceDocuments } from './protected-resource.ts';

export const AUTH_GUIDE_PATH = '/auth.md';

export function createDiscoveryRouter(publicUrl: string): Router {
  const router = new Router();
  const documents = protectedResourceDocuments(publicUrl);
  const guide = authGuide(publicUrl);

  router.get([...documents.keys()], (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = documents.get(ctx.path);
  });

  router.get(AUTH_GUIDE_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = guide;
  });

  return router;
}
