/**
 * Mints tokens in our shape and reads a presented one before anything else is done with it
 * (contracts token-format.ts, docs/adr/0025): the one check the gateway, the proxy and the auth
 * service run before any cache, introspection or database read.
 *
 * Enforces: a token with our prefix counts only if its tag verifies under one of the keys (the
 * first mints, every one verifies: rotation) and its kind is one we issue; the comparison is in
 * constant time. Anything without the prefix is a legacy token (issued before the prefix existed):
 * the caller decides whether those are still looked up (legacy-tokens.ts).
 */
import type { KeyObject } from 'node:crypto';
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IssuedTokenKind } from '@pag/contracts';
import { TOKEN_KIND_CODES, TOKEN_RANDOM_LENGTH, TOKEN_TAG_LENGTH } from '@pag/contracts';

const PREFIX = 'pag_';
/** `pag_xx_`. */
const HEAD_LENGTH = PREFIX.length + 3;
const TOKEN_LENGTH = HEAD_LENGTH + TOKEN_RANDOM_LENGTH + TOKEN_TAG_LENGTH;
const TAG_BYTES = 16;
const RANDOM_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const KIND_BY_CODE = new Map<string, IssuedTokenKind>(
  Object.entries(TOKEN_KIND_CODES).map(([kind, code]) => [code, kind as IssuedTokenKind]),
);
/** Keys shorter than this are refused: the tag is only as strong as its key. */
export const TOKEN_TAG_KEY_MIN = 32;

/** What a presented token is: ours with a verified tag, ours but forged, or legacy. */
export type TokenShape =
  | { shape: 'tagged'; kind: IssuedTokenKind }
  | { shape: 'forged' }
  | { shape: 'legacy' };

const FORGED: TokenShape = { shape: 'forged' };
const LEGACY: TokenShape = { shape: 'legacy' };

export class TokenTags {
  /** KeyObjects: an HMAC keyed by one costs a quarter of one keyed by a Buffer (no key import per call). */
  readonly #keys: readonly KeyObject[];

  /** `keys[0]` tags new tokens; every key verifies (add a new key first, drop the old one later). */
  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new Error('TokenTags needs at least one key');
    if (keys.some((key) => key.length < TOKEN_TAG_KEY_MIN))
      throw new Error(`each token tag key must have at least ${TOKEN_TAG_KEY_MIN} characters`);
    this.#keys = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  }

  /** A new token of this kind: prefix, 256 random bits, and its tag under the first key. */
  mint(kind: IssuedTokenKind): string {
    const head = `${PREFIX}${TOKEN_KIND_CODES[kind]}_${randomBytes(RANDOM_BYTES).toString('base64url')}`;
    return `${head}${tagOf(this.#keys[0] as KeyObject, head).toString('base64url')}`;
  }

  /** What `token` is, from its text alone (no lookup). */
  read(token: string): TokenShape {
    if (!token.startsWith(PREFIX)) return LEGACY;
    if (token.length !== TOKEN_LENGTH || token[HEAD_LENGTH - 1] !== '_' || !BASE64URL.test(token))
      return FORGED;
    const kind = KIND_BY_CODE.get(token.slice(PREFIX.length, HEAD_LENGTH - 1));
    if (kind === undefined) return FORGED;
    const head = token.slice(0, TOKEN_LENGTH - TOKEN_TAG_LENGTH);
    const presented = Buffer.from(token.slice(TOKEN_LENGTH - TOKEN_TAG_LENGTH), 'base64url');
    // 22 base64url characters carry 132 bits: the last 4 must be zero, or two texts would be one tag.
    if (presented.length !== TAG_BYTES || presented.toString('base64url') !== token.slice(-TOKEN_TAG_LENGTH))
      return FORGED;
    for (const key of this.#keys)
      if (timingSafeEqual(tagOf(key, head), presented)) return { shape: 'tagged', kind };
    return FORGED;
  }
}

function tagOf(key: KeyObject, head: string): Buffer {
  return createHmac('sha256', key).update(head, 'utf8').digest().subarray(0, TAG_BYTES);
}
