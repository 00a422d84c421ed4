/**
 * Every URL the service prints comes from PUBLIC_URL, never from the Host header. oidc-provider
 * builds endpoint URLs from the request (ctx.href) and koa decides whether cookies may be Secure
 * from X-Forwarded-Proto, so before anything reads them the request's host and protocol are set to
 * PUBLIC_URL's. The gateway sets the same values (from the same PUBLIC_URL); a request reaching
 * the internal port some other way cannot name another origin. X-Forwarded-For, which the gateway
 * sets from the socket, is left alone: login throttling keys on it.
 */
import type { Middleware } from 'koa';

export function pinPublicOrigin(publicUrl: string): Middleware {
  const url = new URL(publicUrl);
  const proto = url.protocol.slice(0, -1);
  return (ctx, next) => {
    const headers = ctx.req.headers;
    headers.host = url.host;
    headers['x-forwarded-host'] = url.host;
    headers['x-forwarded-proto'] = proto;
    delete headers.forwarded;
    return next();
  };
}
