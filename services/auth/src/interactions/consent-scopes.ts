/**
 * What a consent prompt asks for, read from oidc-provider's prompt details: the OIDC scopes and
 * the scopes per resource that the owner has not granted yet, each with its plain-English line
 * from the scope catalogue. Only the gateway may appear as a resource (under any of its three
 * identifiers: the API, the MCP endpoint, the base URL; contracts' protected-resources.ts): the
 * provider's resource indicator policy admits nothing else, and a grant for an unknown resource is
 * refused here too.
 */
import { AppError, describeScope } from '@pag/contracts';
import type { ConsentScope } from './interaction-pages.ts';

const OIDC_SCOPE_WORDS: Record<string, string> = {
  openid: 'Know which account you signed in with (your account id).',
  offline_access: 'Stay connected while you are away (it receives a refresh token).',
};

export interface ConsentRequest {
  oidcScopes: string[];
  oidcClaims: string[];
  /** Scopes on the gateway's resource. */
  apiScopes: string[];
  /** The identifier the client named for the gateway (null: no resource scopes asked). */
  resource: string | null;
  /** Everything above, described, in the order asked. */
  described: ConsentScope[];
  /** The API scopes described (the consent form's boxes). */
  apiDescribed: ConsentScope[];
  /** The OpenID scopes not also API scopes, described. */
  oidcDescribed: ConsentScope[];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function describeForConsent(scope: string): string {
  return (
    OIDC_SCOPE_WORDS[scope] ?? describeScope(scope) ?? `The permission "${scope}" (no description available).`
  );
}

export function readConsentRequest(
  details: Record<string, unknown>,
  gatewayResources: ReadonlySet<string>,
): ConsentRequest {
  const oidcScopes = stringList(details.missingOIDCScope);
  const oidcClaims = stringList(details.missingOIDCClaims);
  const byResource = details.missingResourceScopes;
  let apiScopes: string[] = [];
  let asked: string | null = null;
  if (typeof byResource === 'object' && byResource !== null) {
    for (const [resource, scopes] of Object.entries(byResource)) {
      if (!gatewayResources.has(resource) || (asked !== null && asked !== resource)) {
        throw new AppError(
          'INVALID_REQUEST',
          'The application asked for access to a resource this server does not know.',
        );
      }
      apiScopes = stringList(scopes);
      asked = resource;
    }
  }
  const all = [...new Set([...oidcScopes, ...apiScopes])];
  const describe = (scope: string) => ({ scope, description: describeForConsent(scope) });
  return {
    oidcScopes,
    oidcClaims,
    apiScopes,
    resource: asked,
    described: all.map(describe),
    apiDescribed: [...new Set(apiScopes)].map(describe),
    oidcDescribed: oidcScopes.filter((scope) => !apiScopes.includes(scope)).map(describe),
  };
}

/**
 * The CSP form-action source that admits the redirect to the client after a form (see
 * page-security.ts): the redirect URI's origin, or its scheme for a native app's custom scheme.
 */
export function redirectFormTarget(redirectUri: unknown): string[] {
  if (typeof redirectUri !== 'string') return [];
  try {
    const url = new URL(redirectUri);
    if (url.protocol === 'https:' || url.protocol === 'http:') return [url.origin];
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? [url.protocol] : [];
  } catch {
    return [];
  }
}

/** What the consent page names as the destination: the host, or the whole URI without one. */
export function redirectDestination(redirectUri: unknown): string {
  if (typeof redirectUri !== 'string') return 'the application';
  try {
    const url = new URL(redirectUri);
    return url.host || `${url.protocol}${url.pathname}`;
  } catch {
    return 'the application';
  }
}
