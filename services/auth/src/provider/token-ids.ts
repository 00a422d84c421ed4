/**
 * Every access and refresh token oidc-provider issues gets our shape (contracts token-format.ts,
 * docs/adr/0025): `pag_<kind>_<random><tag>`, the kind from how the token came to be (its `gty`:
 * an agent kind for dashboard, handshake and device tokens, else an OAuth grant).
 *
 * Why a patch: a token's value is its `jti`, made by the model's own generateTokenId() when the
 * token is first saved (lib/models/base_model.js save(); lib/models/formats/opaque.js uses
 * nanoid). oidc-provider 9's configuration offers only its length (`formats.bitsOfOpaqueRandomness`),
 * and every grant handler builds tokens with `new provider.AccessToken(…)`, a class the provider
 * makes per instance and keeps privately, so a subclass would never be used. Replacing the method
 * on this provider's own model prototypes is the one place every token passes through. The
 * original still runs first for access tokens: it resolves `format`, which saving reads.
 */
import type { IssuedTokenKind, TokenKind } from '@pag/contracts';
import type { TokenTags } from '@pag/kit';
import type Provider from 'oidc-provider';

interface TokenModel {
  gty?: string | undefined;
  format?: string | undefined;
  generateTokenId(): string;
}

const AGENT_KINDS = new Set<TokenKind>(['dashboard', 'handshake', 'device']);

/** The kind of an access token from its grant type (AgentStore.issueToken sets the agent's kind). */
function accessKind(gty: string | undefined): IssuedTokenKind {
  return AGENT_KINDS.has(gty as TokenKind) ? (gty as TokenKind) : 'oauth';
}

export function tagTokenIds(provider: Provider, tags: TokenTags): void {
  const access = provider.AccessToken.prototype as unknown as TokenModel;
  const generateAccessId = access.generateTokenId;
  access.generateTokenId = function (this: TokenModel) {
    const id = generateAccessId.call(this);
    // A JWT access token's id is its jti claim, not a bearer value (none is configured).
    return this.format === 'opaque' ? tags.mint(accessKind(this.gty)) : id;
  };
  const refresh = provider.RefreshToken.prototype as unknown as TokenModel;
  refresh.generateTokenId = () => tags.mint('refresh');
}
