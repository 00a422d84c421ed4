/**
 * How every forwarder (the gateway to the proxy, the proxy to a connected service) sets up
 * http-proxy-middleware: the upstream sees its own host name (changeOrigin), no X-Forwarded-*
 * header leaks the caller's address (xfwd off), a redirect goes back to the caller instead of
 * being followed with the owner's credentials, and Location headers are passed on unrewritten.
 */
export const FORWARDING_OPTIONS = {
  changeOrigin: true,
  xfwd: false,
  followRedirects: false,
  autoRewrite: false,
} as const;
