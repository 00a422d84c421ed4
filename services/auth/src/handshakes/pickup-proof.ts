/**
 * The proof an agent gives when it asks for access, so that it, and only it, collects the token
 * once the owner approves (docs/adr/0058). PKCE's S256 (RFC 7636 §4.2): the agent keeps a random
 * code verifier and sends BASE64URL(SHA-256(verifier)) as codeChallenge; collecting, it sends the
 * verifier, whose hash must equal the stored challenge. Only the challenge rests in the database:
 * reading it gives nobody the verifier.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, CodeVerifier, HANDSHAKE_VERIFIER_HEADER } from '@pag/contracts';

/** BASE64URL(SHA-256(verifier)), without padding: the S256 challenge of a verifier. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Whether the verifier is the one the challenge was made from (constant time: the comparison
 * tells nothing about how much of a wrong guess was right).
 */
export function proofMatches(challenge: string, verifier: string): boolean {
  const expected = Buffer.from(challenge, 'ascii');
  const actual = Buffer.from(s256Challenge(verifier), 'ascii');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The verifier as sent; one that cannot be a code verifier at all is a 400 naming the header. */
export function readVerifier(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!CodeVerifier.safeParse(value).success)
    throw new AppError(
      'INVALID_REQUEST',
      `The ${headerName()} header must be a code verifier: 43 to 128 characters among letters, digits and - . _ ~ (RFC 7636).`,
    );
  return value;
}

/** The refusal of a verifier that does not match: the same whatever the handshake's state. */
export function proofMismatch(handshakeId: string): AppError {
  return new AppError(
    'HANDSHAKE_PROOF_MISMATCH',
    `The ${headerName()} header does not match the codeChallenge of handshake ${handshakeId}.`,
  );
}

/** `Handshake-Verifier`, as a client writes it. */
function headerName(): string {
  return HANDSHAKE_VERIFIER_HEADER.replace(
    /(^|-)([a-z])/g,
    (_, dash: string, c: string) => dash + c.toUpperCase(),
  );
}
