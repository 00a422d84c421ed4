/**
 * RFC 8252 §7.3: a native app's loopback redirect URI matches with any port. The app listens on
 * whatever port the system gives it at that moment, so it registers (or, with a metadata
 * document, publishes once for every install) `http://127.0.0.1/callback` and asks for
 * `http://127.0.0.1:53122/callback`. Only the port may differ: scheme http, the same loopback
 * host (127.0.0.1, [::1], or localhost, the hosts the registration policy admits for http), the
 * same path and query, compared as written.
 *
 * oidc-provider does this for clients registered with application_type `native` only; MCP clients
 * register as `web` (the default) with a loopback URI, and a metadata document cannot name the
 * port, so it applies here to every client: the registration policy admits http on loopback hosts
 * only, so nothing but a loopback URI is widened.
 */
import type Provider from 'oidc-provider';

const LOOPBACK_AUTHORITY = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::\d{1,5})?(?=[/?]|$)/;

/** The URI without its port when it is an http loopback URI; null otherwise. */
export function withoutLoopbackPort(uri: string): string | null {
  const match = LOOPBACK_AUTHORITY.exec(uri);
  if (match === null || uri.includes('#')) return null;
  return `http://${match[1]}${uri.slice(match[0].length)}`;
}

/** Whether `requested` is one of the registered loopback URIs but for its port. */
export function loopbackRedirectMatches(requested: string, registered: readonly string[]): boolean {
  const stripped = withoutLoopbackPort(requested);
  return stripped !== null && registered.some((uri) => withoutLoopbackPort(uri) === stripped);
}

/** Widens every client's redirect URI check by the rule above (post-logout URIs stay exact). */
export function admitLoopbackPorts(provider: Provider): void {
  const prototype = provider.Client.prototype;
  const exactRedirect = prototype.redirectUriAllowed;
  prototype.redirectUriAllowed = function redirectUriAllowed(uri: string): boolean {
    return exactRedirect.call(this, uri) || loopbackRedirectMatches(uri, this.redirectUris ?? []);
  };
}
