/**
 * The RFC 7662 client every resource server uses to check a bearer token at the auth service.
 *
 * Enforces: a token is read before it is asked about (token-tags.ts): one with our prefix whose tag
 * does not verify, a refresh token, or a legacy token (no prefix) once the auth service said it no
 * longer accepts those (legacy-tokens.ts) is inactive at once, without a request. A cached answer
 * is of a token read so already (the same text: the cache is keyed by its hash), so a hit skips the
 * tag's HMAC (about 2 % of the gateway's thread per request, docs/adr/0043) and re-checks only what
 * changes with time, the legacy window;
 * authentication as the resource server's own confidential client (client_secret_basic);
 * answers cached by the token's SHA-256 (never the token) for a few seconds and never past its
 * expiry; inactive answers cached briefly, with why they are inactive (expired, revoked or unknown,
 * the auth service's TOKEN_INACTIVE_HEADER; docs/adr/0062); concurrent checks of one token share one request; a
 * TokenRevokedEvent on the bus evicts at once (and an answer in flight during the eviction is not
 * cached); an auth service that is down or slow is a 503/504, never an inactive token. A question
 * whose connection is refused or closed before the answer (an auth replica stopping) is asked
 * again, within the same deadline, on another connection, and so is one a replica answered 503
 * (not ready yet, or stopping) (docs/adr/0057).
 *
 * A revoked token also stays refused for REFUSE_REVOKED_MS whatever a later answer says: an auth
 * replica that has not heard of the revocation yet may still answer from the tokens it read a
 * moment ago (services/auth store/recent-tokens.ts, at most 5 s), and that answer must not bring
 * the token back. For a revocation of every token of a client, tokens issued after it pass.
 */
import type { InactiveReason, TokenRevokedEvent } from '@pag/contracts';
import {
  AppError,
  EventSubjects,
  INACTIVE_REASONS,
  TOKEN_INACTIVE_HEADER,
  TOKEN_LEGACY_HEADER,
} from '@pag/contracts';
import type { LRUCache } from 'lru-cache';
import type { Subscription } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';
import { expiryCache, setUntil } from './expiry-cache.ts';
import { readIntrospectionAnswer } from './introspection-response.ts';
import type {
  ActiveToken,
  IntrospectionClientOptions,
  IntrospectOptions,
  TokenCheck,
} from './introspection-types.ts';
import { readLegacyHeader } from './legacy-tokens.ts';
import { tokenSha256 } from './token-hash.ts';
import { TokenTags } from './token-tags.ts';

/** Attempts at one question when the connection is lost before an answer (a replica stopping). */
const ATTEMPTS = 3;
/** How a connection lost before the answer shows in fetch's cause: refused, reset, closed by the peer. */
const CONNECTION_LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** How long a revoked token (or a client's tokens issued before its revocation) stays refused. */
const REFUSE_REVOKED_MS = 10_000;

/** An answer as cached: lru-cache holds no null, and null (inactive) is an answer worth caching. */
interface Cached {
  answer: ActiveToken | null;
  /** Why an inactive token is (the auth service's TOKEN_INACTIVE_HEADER); kept with the answer. */
  reason: InactiveReason;
  /** The token carries a verified tag (else it is a legacy token, askable only within the window). */
  tagged: boolean;
}

/** What the auth service answered: the active token, or why it is not. */
interface Answer {
  answer: ActiveToken | null;
  reason: InactiveReason;
}

interface InFlight {
  promise: Promise<Answer>;
  /** Set when an eviction happened meanwhile: the answer may predate a revocation. */
  stale: boolean;
}

export class IntrospectionClient implements AsyncDisposable {
  readonly #endpoint: string;
  readonly #authorization: string;
  readonly #cacheMs: number;
  readonly #negativeCacheMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #logger: Logger | undefined;
  readonly #cache: LRUCache<string, Cached>;
  readonly #inFlight = new Map<string, InFlight>();
  /** Revoked tokens by SHA-256, and revoked clients with the time (epoch s) of their revocation. */
  readonly #revokedTokens: LRUCache<string, true>;
  readonly #revokedClients: LRUCache<string, number>;
  readonly #tags: TokenTags;
  /** Until when legacy tokens are asked about (epoch ms); null: never; undefined: not told yet. */
  #legacyUntil: number | null | undefined;
  #subscription: Subscription | undefined;

  /** Builds the client and, when a bus is given, subscribes to revocations before resolving. */
  static async create(options: IntrospectionClientOptions): Promise<IntrospectionClient> {
    const client = new IntrospectionClient(options);
    if (options.bus !== undefined) {
      client.#subscription = await options.bus.subscribe<TokenRevokedEvent>(
        EventSubjects.tokenRevoked,
        (msg) => client.#onRevoked(msg.data),
      );
    }
    return client;
  }

  private constructor(options: IntrospectionClientOptions) {
    this.#endpoint = new URL('oauth/introspect', `${options.authUrl.replace(/\/+$/, '')}/`).href;
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before the Basic encoding.
    const credentials = `${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`;
    this.#authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    this.#cacheMs = options.cacheMs ?? 5_000;
    this.#negativeCacheMs = options.negativeCacheMs ?? 1_000;
    this.#timeoutMs = options.timeoutMs ?? 3_000;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    const maxEntries = options.maxEntries ?? 10_000;
    this.#cache = expiryCache(maxEntries, this.#now);
    this.#revokedTokens = expiryCache(maxEntries, this.#now);
    this.#revokedClients = expiryCache(maxEntries, this.#now);
    this.#tags = new TokenTags(options.tokenTagKeys);
  }

  /** The active token, or null when it is unknown, expired or revoked. */
  async introspect(token: string, options: IntrospectOptions = {}): Promise<ActiveToken | null> {
    return (await this.check(token, options)).active;
  }

  /**
   * The active token, or why the token is not active: `expired` or `revoked` as the auth service
   * says (or as a revocation event just told), else `unknown` (also every token refused from its
   * text alone: forged, a refresh token, a legacy token past the window).
   */
  async check(token: string, options: IntrospectOptions = {}): Promise<TokenCheck> {
    const key = tokenSha256(token);
    const cached = this.#cache.get(key);
    if (cached !== undefined && (cached.tagged || this.#legacyAsked())) return verdict(cached);
    const shape = this.#askable(token);
    if (shape === null) return { active: null, reason: 'unknown' };
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return verdict(await pending.promise);

    const flight: InFlight = { promise: this.#ask(token, options.requestId), stale: false };
    this.#inFlight.set(key, flight);
    try {
      const { answer, reason, cacheable } = this.#refuseRevoked(key, await flight.promise);
      if (!flight.stale && cacheable)
        setUntil(this.#cache, key, { answer, reason, tagged: shape === 'tagged' }, this.#cacheUntil(answer));
      return verdict({ answer, reason });
    } finally {
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    }
  }

  /** Forgets one token's answer (hex SHA-256 of the token). */
  evict(tokenSha256Hex: string): void {
    setUntil(this.#revokedTokens, tokenSha256Hex, true, this.#now() + REFUSE_REVOKED_MS);
    this.#cache.delete(tokenSha256Hex);
    const flight = this.#inFlight.get(tokenSha256Hex);
    if (flight !== undefined) {
      flight.stale = true;
      this.#inFlight.delete(tokenSha256Hex);
    }
  }

  /**
   * Forgets every answer about a client's tokens, revoked at `revokedAt` (epoch ms; default now).
   * Answers in flight are unknown yet, so none is kept.
   */
  evictClient(clientId: string, revokedAt = this.#now()): void {
    const seconds = Math.floor(revokedAt / 1000);
    const earlier = this.#revokedClients.get(clientId) ?? 0;
    setUntil(this.#revokedClients, clientId, Math.max(seconds, earlier), this.#now() + REFUSE_REVOKED_MS);
    // Keys first, then deletes: lru-cache's entries() walks links that a delete rewrites.
    const ofClient = [...this.#cache.entries()].filter(([, cached]) => cached.answer?.clientId === clientId);
    for (const [key] of ofClient) this.#cache.delete(key);
    for (const flight of this.#inFlight.values()) flight.stale = true;
    this.#inFlight.clear();
  }

  async close(): Promise<void> {
    await this.#subscription?.close();
    this.#subscription = undefined;
    this.#cache.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Whether the token is worth asking about, from its text alone (null: inactive at once). */
  #askable(token: string): 'tagged' | 'legacy' | null {
    const read = this.#tags.read(token);
    if (read.shape === 'tagged') return read.kind === 'refresh' ? null : 'tagged';
    if (read.shape === 'forged') return null;
    return this.#legacyAsked() ? 'legacy' : null;
  }

  /** Whether legacy tokens (no prefix) are still asked about now. */
  #legacyAsked(): boolean {
    return this.#legacyUntil === undefined || (this.#legacyUntil !== null && this.#now() < this.#legacyUntil);
  }

  #onRevoked(event: TokenRevokedEvent): void {
    const at = Date.parse(event.revokedAt);
    if (event.tokenSha256 === null) this.evictClient(event.clientId, Number.isNaN(at) ? this.#now() : at);
    else this.evict(event.tokenSha256);
  }

  /**
   * An active answer about a token revoked a moment ago is stale: the token stays refused. Of a
   * client revoked as a whole, tokens issued before the second of the revocation are refused; one
   * issued within that second (iat has a resolution of 1 s) may be its replacement, e.g. a client
   * re-authorizing at once after reuse detection revoked its grant: it passes, but is asked about
   * again on every use until the moment is over, so a stale answer lasts no longer than the replica
   * that gave it stays unaware.
   */
  #refuseRevoked(key: string, asked: Answer): Answer & { cacheable: boolean } {
    const { answer } = asked;
    const revoked = { answer: null, reason: 'revoked', cacheable: true } as const;
    // Refused either way; whatever the auth service answered, this one was revoked a moment ago.
    if (this.#revokedTokens.get(key) !== undefined) return revoked;
    if (answer === null) return { ...asked, cacheable: true };
    const clientRevokedAt = this.#revokedClients.get(answer.clientId);
    if (clientRevokedAt === undefined) return { ...asked, cacheable: true };
    const issuedAt = answer.issuedAt ?? 0;
    if (issuedAt < clientRevokedAt) return revoked;
    return { ...asked, cacheable: issuedAt > clientRevokedAt };
  }

  #cacheUntil(answer: ActiveToken | null): number {
    const now = this.#now();
    if (answer === null) return now + this.#negativeCacheMs;
    const until = now + this.#cacheMs;
    return answer.expiresAt === undefined ? until : Math.min(until, answer.expiresAt * 1000);
  }

  async #ask(token: string, requestId: string | undefined): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (requestId !== undefined) headers['x-request-id'] = requestId;
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' }).toString();
    // One deadline for every attempt.
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Node's fetch keeps connections alive (undici's global agent), so a check costs one round trip.
        response = await fetch(this.#endpoint, {
          method: 'POST',
          headers,
          body: form,
          signal,
          redirect: 'error',
        });
      } catch (error) {
        // An auth replica that stops refuses connections and closes idle ones: asking is
        // side-effect free (RFC 7662), so the question goes again, on another connection (undici
        // drops the failed one; a new one is looked up again, so it reaches a replica still up).
        if (attempt >= ATTEMPTS || !isConnectionLost(error)) throw this.#unreachable(error);
        this.#logger?.debug({ err: error, attempt }, 'introspection connection lost; asking again');
        continue;
      }
      // 503: a replica not ready yet (a new one answers so until it is) or stopping; another may answer.
      if (response.status !== 503 || attempt >= ATTEMPTS) break;
      await response.body?.cancel();
      this.#logger?.debug({ attempt }, 'introspection answered 503; asking again');
    }
    this.#legacyUntil = readLegacyHeader(response.headers.get(TOKEN_LEGACY_HEADER));
    if (response.status !== 200) {
      await response.body?.cancel();
      this.#logger?.error({ status: response.status }, 'introspection refused');
      throw new AppError('SERVICE_UNAVAILABLE', `Introspection answered HTTP ${response.status}.`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw this.#unreachable(error);
    }
    const answer = readIntrospectionAnswer(body);
    return {
      answer,
      reason: answer === null ? inactiveReason(response.headers.get(TOKEN_INACTIVE_HEADER)) : 'unknown',
    };
  }

  #unreachable(error: unknown): AppError {
    const name = (error as Error | undefined)?.name;
    if (name === 'TimeoutError') {
      return new AppError(
        'UPSTREAM_TIMEOUT',
        `The auth service did not answer within ${this.#timeoutMs} ms.`,
        {
          cause: error,
        },
      );
    }
    return new AppError('SERVICE_UNAVAILABLE', 'The auth service is not reachable.', { cause: error });
  }
}

/** fetch's own failure (a TypeError) caused by the connection, not by the deadline or the answer. */
function isConnectionLost(error: unknown): boolean {
  const code = ((error as Error | undefined)?.cause as { code?: string } | undefined)?.code;
  // By name: fetch's TypeError may come from another realm than this module's (jest's vm contexts).
  return (
    (error as Error | undefined)?.name === 'TypeError' && code !== undefined && CONNECTION_LOST.has(code)
  );
}

function verdict({ answer, reason }: Answer): TokenCheck {
  return answer === null ? { active: null, reason } : { active: answer };
}

/** The auth service's reason for an inactive answer; anything else (or none) is `unknown`. */
function inactiveReason(header: string | null): InactiveReason {
  return (INACTIVE_REASONS as readonly (string | null)[]).includes(header)
    ? (header as InactiveReason)
    : 'unknown';
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
