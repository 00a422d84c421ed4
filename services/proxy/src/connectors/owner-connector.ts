/**
 * An owner's own generic OAuth 2.0 connector (docs/adr/0068): the form's fields (contracts'
 * OwnerConnectorFields) made into a provider definition and validated by the catalogue's own
 * schema (providerSchema), then checked against the owner not being trusted like the operator:
 *
 * - the name must not be one of the catalogue or of the deployment (CONNECTOR_CUSTOM);
 * - every URL is https (http on loopback only with CONNECTOR_ALLOW_LOOPBACK, for tests), and its
 *   host resolves to public addresses only (kit's checkPublicUrl), checked again at every request
 *   the proxy sends (calls/public-agent.ts, oauth/provider-client.ts);
 * - reads are GET and HEAD, everything else writes, with the common method-override parameters
 *   refused: what the gateway applies to any connector it does not know, since it checks the
 *   scope before the proxy is asked and does not load owners' definitions.
 *
 * A refusal is 400 INVALID_REQUEST whose message names the form's field.
 */
import type { OwnerConnectorFields, ProviderDefinition } from '@pag/contracts';
import { AppError, METHOD_OVERRIDES, providerSchema, REST_READ } from '@pag/contracts';
import { checkPublicUrl } from '@pag/kit';

/** The definition as stored: no client (that is sealed apart). */
export type OwnerDefinition = ProviderDefinition;

/** The form's field a schema path stands for. */
const FIELDS: Readonly<Record<string, keyof OwnerConnectorFields>> = {
  name: 'name',
  displayName: 'displayName',
  'auth.authorizationUrl': 'authorizationUrl',
  'auth.tokenUrl': 'tokenUrl',
  'auth.revocation.url': 'revocationUrl',
  'auth.defaultScopes': 'scopes',
  'api.baseUrl': 'apiBaseUrl',
  'api.allowedHosts': 'apiBaseUrl',
};

function fieldOf(path: readonly PropertyKey[]): string {
  const dotted = path.filter((part) => typeof part === 'string').join('.');
  return FIELDS[dotted] ?? (dotted || 'connector');
}

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_REQUEST', `${field}: ${message}`, {
    hint: 'Correct the field named and send the form again.',
  });
}

function hostOf(value: string): string {
  try {
    return new URL(value).host;
  } catch {
    return '';
  }
}

/** The provider definition of the owner's fields, validated by the catalogue's schema. */
export function ownerDefinition(fields: OwnerConnectorFields, allowLoopback: boolean): OwnerDefinition {
  const parsed = providerSchema({ allowLoopback }).safeParse({
    name: fields.name,
    displayName: fields.displayName,
    auth: {
      type: 'oauth2',
      authorizationUrl: fields.authorizationUrl,
      tokenUrl: fields.tokenUrl,
      clientAuth: fields.clientAuth,
      pkce: fields.pkce,
      defaultScopes: fields.scopes,
      refreshTokens: 'rotating',
      revocation: fields.revocationUrl === null ? null : { url: fields.revocationUrl, style: 'rfc7009' },
    },
    api: {
      baseUrl: fields.apiBaseUrl,
      allowedHosts: [hostOf(fields.apiBaseUrl)],
      credential: { type: 'bearer' },
    },
    resources: [],
    access: { style: 'rest', readAccess: REST_READ, overrideParameters: METHOD_OVERRIDES },
  });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw invalid(fieldOf(issue?.path ?? []), issue?.message ?? 'invalid');
  }
  return parsed.data;
}

/** The fields back from a stored definition (the dashboard's edit form), without the secret. */
export function ownerFields(
  definition: OwnerDefinition,
  clientId: string,
): Omit<OwnerConnectorFields, 'clientSecret'> {
  const { auth } = definition;
  if (auth.type !== 'oauth2') throw new Error(`owner connector ${definition.name} is not OAuth 2.0`);
  return {
    name: definition.name,
    displayName: definition.displayName,
    authorizationUrl: auth.authorizationUrl,
    tokenUrl: auth.tokenUrl,
    revocationUrl: auth.revocation?.url ?? null,
    apiBaseUrl: definition.api.baseUrl,
    scopes: auth.defaultScopes,
    clientAuth: auth.clientAuth,
    pkce: auth.pkce,
    clientId,
  };
}

/** Every URL of the definition must resolve to public addresses (loopback too, with the test flag). */
export async function checkOwnerUrls(definition: OwnerDefinition, allowLoopback: boolean): Promise<void> {
  const { auth } = definition;
  if (auth.type !== 'oauth2') return;
  const urls: [string, string][] = [
    ['authorizationUrl', auth.authorizationUrl],
    ['tokenUrl', auth.tokenUrl],
    ['apiBaseUrl', definition.api.baseUrl],
  ];
  if (auth.revocation !== null) urls.push(['revocationUrl', auth.revocation.url]);
  for (const [field, url] of urls) {
    try {
      await checkPublicUrl(url, allowLoopback);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalid(field, `${reason}; only public addresses can be used`);
    }
  }
}
