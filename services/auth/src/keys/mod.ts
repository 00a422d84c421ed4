export { decryptJwk, encryptJwk } from './key-encryption.ts';
export type { SigningJwk } from './signing-key.ts';
export { generateSigningJwk, jwkThumbprint, SIGNING_ALG } from './signing-key.ts';
export type { RotationResult, SigningKeyOptions } from './signing-keys.ts';
export { loadSigningKeys, RETIRED_KEY_GRACE_SECONDS, rotateSigningKeys } from './signing-keys.ts';
