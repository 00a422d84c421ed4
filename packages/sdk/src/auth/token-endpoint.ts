/**
 * The OAuth token endpoint (form-encoded, RFC 6749 error bodies rather than the API's), used by
 * the OAuth flow and the device key. Never follows a redirect either.
 */
import { isRedirect, PagError, redirectRefused, retryAfterSeconds, SDK_CODES } from '../errors.ts';
import type { Transport } from '../transport.ts';

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

export type TokenResult =
  | { ok: true; tokens: TokenAnswer }
  | { ok: false; status: number; error: string; description: string; retryAfterSeconds: number | null };

export async function postTokenRequest(
  transport: Transport,
  tokenEndpoint: string,
  form: Record<string, string>,
): Promise<TokenResult> {
  const response = await transport.fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  if (isRedirect(response)) throw redirectRefused(response, tokenEndpoint);
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new PagError({
      code: SDK_CODES.UNEXPECTED_RESPONSE,
      message: `the token endpoint answered ${response.status} without JSON: ${text.slice(0, 200)}`,
      status: response.status,
      cause,
    });
  }
  if (response.ok && typeof body.access_token === 'string')
    return { ok: true, tokens: body as unknown as TokenAnswer };
  return {
    ok: false,
    status: response.status,
    error: typeof body.error === 'string' ? body.error : 'invalid_response',
    description: typeof body.error_description === 'string' ? body.error_description : '',
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
  };
}

/** The tokens of a successful answer; OAUTH_ERROR naming the error otherwise. */
export function tokensOrThrow(result: TokenResult, what: string): TokenAnswer {
  if (result.ok) return result.tokens;
  throw new PagError({
    code: SDK_CODES.OAUTH_ERROR,
    message: `${what}: ${result.error}${result.description === '' ? '' : ` (${result.description})`}`,
    hint:
      result.error === 'invalid_grant'
        ? 'The grant is no longer valid (used, expired or revoked): authorize again.'
        : 'See the authorization server metadata and /auth.md.',
    status: result.status,
  });
}
