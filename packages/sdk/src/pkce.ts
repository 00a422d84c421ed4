/**
 * PKCE (RFC 7636, S256) with WebCrypto: the handshake's proof and OAuth's code challenge; and the
 * WebCrypto key types the device key uses (the project compiles without the DOM library).
 */

export type PrivateKey = InstanceType<typeof globalThis.CryptoKey>;
/** An Ed25519 key pair of WebCrypto (`crypto.subtle.generateKey({ name: 'Ed25519' }, true, …)`). */
export interface KeyPair {
  publicKey: PrivateKey;
  privateKey: PrivateKey;
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function randomBase64url(byteLength: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

/** A fresh verifier (43 characters of base64url, 256 random bits) and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomBase64url(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}
