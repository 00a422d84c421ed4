export type { ProofVerdict, SignedRequest } from './gateway-proof.ts';
export {
  GATEWAY_SECRET_MIN_LENGTH,
  MAX_SKEW_SECONDS,
  signGatewayRequest,
  verifyGatewayRequest,
} from './gateway-proof.ts';
export { IntrospectionClient } from './introspection-client.ts';
export { readIntrospectionAnswer } from './introspection-response.ts';
export type {
  ActiveToken,
  IntrospectionClientOptions,
  IntrospectOptions,
  TokenCheck,
} from './introspection-types.ts';
export { legacyHeaderValue, readLegacyHeader } from './legacy-tokens.ts';
export { tokenSha256 } from './token-hash.ts';
export type { TokenShape } from './token-tags.ts';
export { TOKEN_TAG_KEY_MIN, TokenTags } from './token-tags.ts';
