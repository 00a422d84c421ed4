/**
 * The RFC 7662 client every resource server uses to check a bearer token at the auth service.
 *
 * Enforces: authentication as the resource server's own confidential client (client_secret_basic);
 * answers cached by the token's SHA-256 (never the token) for a few seconds and never past its
 * expiry; inactive answers cached briefly; concurrent checks of one token share one request; a
 * TokenRevokedEvent on the bus evicts at once (and an answer in flight during the eviction is not
 * cached); an auth service that is down or slow is a 503/504, never an inactive token.
 */
import type { TokenRevokedEvent } from '@pag/contracts';
import { AppError, EventSubjects } from '@pag/contracts';
import type { Subscription } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';
import { ExpiringLru } from './expiring-lru.ts';
import { readIntrospectionAnswer } from './introspection-response.ts';
import type { ActiveToken, IntrospectionClientOptions, IntrospectOptions } from './introspection-types.ts';
import { tokenSha256 } from './token-hash.ts';

interface InFlight {
  promise: Promise<ActiveToken | null>;
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
  readonly #cache: ExpiringLru<ActiveToken | null>;
  readonly #inFlight = new Map<string, InFlight>();
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
    this.#cache = new ExpiringLru(options.maxEntries ?? 10_000, this.#now);
  }

  /** The active token, or null when it is unknown, expired or revoked. */
  async introspect(token: string, options: IntrospectOptions = {}): Promise<ActiveToken | null> {
    const key = tokenSha256(token);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending.promise;

    const flight: InFlight = { promise: this.#ask(token, options.requestId), stale: false };
    this.#inFlight.set(key, flight);
    try {
      const answer = await flight.promise;
      if (!flight.stale) this.#cache.set(key, answer, this.#cacheUntil(answer));
      return answer;
    } finally {
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    }
  }

  /** Forgets one token's answer (hex SHA-256 of the token). */
  evict(tokenSha256Hex: string): void {
    this.#cache.delete(tokenSha256Hex);
    const flight = this.#inFlight.get(tokenSha256Hex);
    if (flight !== undefined) {
      flight.stale = true;
      this.#inFlight.delete(tokenSha256Hex);
    }
  }

  /** Forgets every answer about a client's tokens. Answers in flight are unknown yet, so none is kept. */
  evictClient(clientId: string): void {
    this.#cache.deleteWhere((answer) => answer?.clientId === clientId);
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

  #onRevoked(event: TokenRevokedEvent): void {
    if (event.tokenSha256 === null) this.evictClient(event.clientId);
    else this.evict(event.tokenSha256);
  }

  #cacheUntil(answer: ActiveToken | null): number {
    const now = this.#now();
    if (answer === null) return now + this.#negativeCacheMs;
    const until = now + this.#cacheMs;
    return answer.expiresAt === undefined ? until : Math.min(until, answer.expiresAt * 1000);
  }

  async #ask(token: string, requestId: string | undefined): Promise<ActiveToken | null> {
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (requestId !== undefined) headers['x-request-id'] = requestId;
    let response: Response;
    try {
      // Node's fetch keeps connections alive (undici's global agent), so a check costs one round trip.
      response = await fetch(this.#endpoint, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw this.#unreachable(error);
    }
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
    return readIntrospectionAnswer(body);
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

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
