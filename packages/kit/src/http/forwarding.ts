/**
 * How every forwarder (the gateway to the proxy, the proxy to a connected service) sets up
 * http-proxy-middleware: the upstream sees its own host name (changeOrigin), no X-Forwarded-*
 * header leaks the caller's address (xfwd off), a redirect goes back to the caller instead of
 * being followed with the owner's credentials, and Location headers are passed on unrewritten.
 *
 * Its default plugins are ejected (docs/adr/0074): the logger plugin builds a URL and a log line
 * for every answer (http-proxy-middleware's dist/plugins/default/logger-plugin.js) that its
 * default logger then throws away; the debug plugin adds a `close` and an `error` listener to every
 * response for things httpxy already does (destroying the service's answer when the client's
 * closes) or that only its debug output shows; the error-response plugin is not loaded anyway
 * where `on.error` is given, as every forwarder here gives it. A forwarder lists the one plugin it
 * needs, `proxyEventsPlugin` (which registers its `on` handlers), next to these options; without
 * it no `on` handler runs, which every forwarder's tests would show at once.
 */
export const FORWARDING_OPTIONS = {
  changeOrigin: true,
  xfwd: false,
  followRedirects: false,
  autoRewrite: false,
  ejectPlugins: true,
} as const;
