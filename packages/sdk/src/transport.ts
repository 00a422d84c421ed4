/**
 * Every request of the SDK goes through `Transport.send`: it never follows a redirect
 * (`redirect: 'manual'`; a 3xx is a REDIRECT_REFUSED error naming the Location), sends the
 * credential's token, gets a new one once after a 401 when the credential can (refresh, new device
 * assertion), and waits out a 429 or 503 as Retry-After says, a bounded number of times, only when
 * repeating cannot do a thing twice: a GET, PUT or DELETE, or a request the gateway refused before
 * performing it (429 RATE_LIMITED / USAGE_LIMIT_EXCEEDED). Any other non-2xx is a PagError from
 * the answer's error body.
 */
import type { Credential } from './credentials.ts';
import { errorFromResponse, isRedirect, PagError, redirectRefused, SDK_CODES } from './errors.ts';
import type { HttpMethod } from './operations.ts';

export interface RetryOptions {
  /** Attempts per request, the first included (default 3). */
  maxAttempts?: number;
  /** Longest Retry-After waited for, in seconds (default 60); a longer one is thrown at once. */
  maxWaitSeconds?: number;
}

export interface TransportOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Waits `ms` (default: a timer); tests and hosts with their own scheduler may replace it. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SendOptions {
  method: HttpMethod;
  /** Path below the base URL, already with its parameters filled in; or an absolute URL the gateway published. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  headers?: Record<string, string>;
  /** Send no Authorization header (the public endpoints of the handshake and the device). */
  anonymous?: boolean;
  signal?: AbortSignal;
}

const IDEMPOTENT = new Set<HttpMethod>(['GET', 'PUT', 'DELETE']);
/** 429 codes with which the gateway says it refused before performing anything. */
const NOT_PERFORMED = new Set(['RATE_LIMITED', 'USAGE_LIMIT_EXCEEDED']);

/** A timer: how the SDK waits unless told otherwise. */
export const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  private readonly maxAttempts: number;
  private readonly maxWaitSeconds: number;
  private readonly sleep: (ms: number) => Promise<void>;

  private readonly credential: Credential | null;
  private readonly options: TransportOptions;

  constructor(baseUrl: string, credential: Credential | null, options: TransportOptions = {}) {
    this.credential = credential;
    this.options = options;
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 3);
    this.maxWaitSeconds = options.retry?.maxWaitSeconds ?? 60;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The same base URL and options with another credential. */
  withCredential(credential: Credential): Transport {
    return new Transport(this.baseUrl, credential, this.options);
  }

  url(path: string, query: SendOptions['query'] = {}): string {
    const url = new URL(/^https?:\/\//.test(path) ? path : `${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  }

  /** The 2xx answer of the request (its body unread); throws PagError for anything else. */
  async send(options: SendOptions): Promise<Response> {
    const url = this.url(options.path, options.query);
    let renewed = false;
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.once(url, options);
      if (response.ok) return response;
      if (isRedirect(response)) throw redirectRefused(response, url);
      const error = await errorFromResponse(response);
      if (
        response.status === 401 &&
        !options.anonymous &&
        !renewed &&
        this.credential?.renew !== undefined &&
        (await this.credential.renew())
      ) {
        renewed = true;
        attempt -= 1;
        continue;
      }
      if (!this.retryable(options.method, error) || attempt >= this.maxAttempts) throw error;
      const wait = error.retryAfterSeconds ?? 0;
      if (wait > this.maxWaitSeconds)
        throw new PagError({
          code: error.code,
          message: `${error.message} (Retry-After ${wait} s is longer than the ${this.maxWaitSeconds} s this client waits)`,
          hint: error.hint,
          requestId: error.requestId,
          status: error.status,
          retryAfterSeconds: wait,
          cause: error,
        });
      await this.sleep(wait * 1000);
    }
  }

  private retryable(method: HttpMethod, error: PagError): boolean {
    if (error.retryAfterSeconds === null) return false;
    if (error.status === 429) return NOT_PERFORMED.has(error.code) || IDEMPOTENT.has(method);
    return error.status === 503 && IDEMPOTENT.has(method);
  }

  private async once(url: string, options: SendOptions): Promise<Response> {
    const headers = new Headers(options.headers);
    if (!options.anonymous && this.credential !== null)
      headers.set('authorization', `Bearer ${await this.credential.token()}`);
    let body: string | undefined;
    if (options.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.json);
    }
    try {
      return await this.fetch(url, {
        method: options.method,
        headers,
        body,
        redirect: 'manual',
        signal: options.signal,
      });
    } catch (cause) {
      if (cause instanceof Error && cause.name === 'AbortError') throw cause;
      throw new PagError({
        code: SDK_CODES.UNEXPECTED_RESPONSE,
        message: `${options.method} ${url} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      });
    }
  }
}

/** The answer's JSON body; UNEXPECTED_RESPONSE when it is not JSON. */
export async function jsonOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new PagError({
      code: SDK_CODES.UNEXPECTED_RESPONSE,
      message: `${response.status} answer is not JSON: ${text.slice(0, 200)}`,
      status: response.status,
      requestId: response.headers.get('x-request-id'),
      cause,
    });
  }
}

/** The base URL without a trailing slash; the API's paths start with /api/v1 exactly once. */
export function normalizeBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.search !== '' || url.hash !== '')
    throw new PagError({
      code: SDK_CODES.INVALID_BASE_URL,
      message: `The base URL ${baseUrl} carries a query or fragment.`,
      hint: 'Give the gateway base URL alone, e.g. http://localhost:8080.',
    });
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/api/v1'))
    throw new PagError({
      code: SDK_CODES.INVALID_BASE_URL,
      message: `The base URL ${baseUrl} ends with /api/v1.`,
      hint: `Give the base URL without /api/v1 (${url.origin}${path.slice(0, -'/api/v1'.length)}): every API path already starts with it.`,
    });
  return `${url.origin}${path}`;
}
