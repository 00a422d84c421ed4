/**
 * One request for a small document at a URL someone else chose (a client's metadata document, the
 * token endpoint of a connector an owner defined), safe against server-side request forgery.
 *
 * What it enforces:
 * - https only; http only to a loopback address, and only when the caller allows loopback (tests);
 * - the host is resolved once, every address it resolves to must be public (public-address.ts),
 *   and the connection goes to the address that was checked (the lookup hook of the request): a
 *   second DNS answer cannot swap in a private address between the check and the connect
 *   (DNS rebinding). An IP literal is checked as it is. TLS still verifies the certificate for the
 *   host name;
 * - no redirect is followed (a 3xx is a failure), no credentials or cookies are sent;
 * - the body is read up to `maxBytes`, the whole exchange within `timeoutMs`.
 *
 * A refusal is a PublicFetchError whose message says what was wrong, in words fit for the client
 * whose URL it was; `unreachable` tells a transient failure (timeout, network, 5xx) from a
 * definitive one.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { classifyAddress, isAllowedAddress } from './public-address.ts';

export interface PublicFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Loopback addresses and http to them (tests only). */
  allowLoopback?: boolean;
  /** Sent as Accept. */
  accept?: string;
  /** GET unless said (a token endpoint takes a POST of a form). */
  method?: 'GET' | 'POST';
  /** Further request headers (Content-Type, Authorization of a token request). */
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

export interface PublicFetchResult {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export class PublicFetchError extends Error {
  /** A failure that may pass (timeout, network, the server's 5xx), not a fault of the document. */
  readonly unreachable: boolean;
  /** The host is, or resolves to, an address that is not allowed: nothing was sent. */
  readonly refusedAddress: boolean;
  constructor(message: string, unreachable: boolean, options?: ErrorOptions & { refusedAddress?: boolean }) {
    super(message, options);
    this.name = 'PublicFetchError';
    this.unreachable = unreachable;
    this.refusedAddress = options?.refusedAddress ?? false;
  }
}

/**
 * The checked connection target: the lookup answers only addresses that passed the check. Given to
 * an http(s).Agent it makes every connection of that agent go to checked addresses only (the
 * proxy's forwarding to a connector an owner defined).
 */
export function checkedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as LookupAddress[];
      const bad = list.find((entry) => !isAllowedAddress(entry.address, allowLoopback));
      if (list.length === 0 || bad !== undefined) {
        const refusal = new PublicFetchError(
          `${hostname} resolves to ${bad?.address ?? 'no address'}, which is not a public address`,
          false,
          { refusedAddress: true },
        );
        return callback(refusal, '', 4);
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Resolves a URL's host once and throws a PublicFetchError unless every address is allowed (an IP
 * literal is judged as it is): for checking a URL when it is entered, before anything is sent.
 */
export async function checkPublicUrl(target: string | URL, allowLoopback = false): Promise<void> {
  const url = new URL(target);
  checkUrl(url, allowLoopback);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return;
  await new Promise<void>((resolve, reject) => {
    checkedLookup(allowLoopback)(host, { all: true }, (error) => (error ? reject(error) : resolve()));
  });
}

function checkUrl(url: URL, allowLoopback: boolean): void {
  if (url.username !== '' || url.password !== '')
    throw new PublicFetchError('the URL must not contain credentials', false);
  const literal = isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;
  const kind = literal ? classifyAddress(url.hostname) : undefined;
  if (url.protocol === 'https:') {
    if (kind !== undefined && !isAllowedAddress(url.hostname, allowLoopback))
      throw new PublicFetchError(`${url.hostname} is not a public address`, false, { refusedAddress: true });
    return;
  }
  if (url.protocol === 'http:' && allowLoopback && kind === 'loopback') return;
  throw new PublicFetchError('the URL must use https', false);
}

export async function fetchPublic(
  target: string | URL,
  options: PublicFetchOptions,
): Promise<PublicFetchResult> {
  const url = new URL(target);
  const allowLoopback = options.allowLoopback ?? false;
  checkUrl(url, allowLoopback);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: options.method ?? 'GET',
    headers: { accept: options.accept ?? 'application/json', 'user-agent': 'pag-auth', ...options.headers },
    lookup: checkedLookup(allowLoopback),
    // A connection of its own: a pooled socket could have been opened for another check.
    agent: false,
    signal: AbortSignal.timeout(options.timeoutMs),
  };
  return new Promise<PublicFetchResult>((resolve, reject) => {
    const fail = (error: unknown) => {
      if (error instanceof PublicFetchError) return reject(error);
      // By name, not instanceof: node's errors may come from another realm (e.g. under jest's VM).
      const { name, message } = error as { name?: string; message?: string };
      const why =
        name === 'AbortError' || name === 'TimeoutError'
          ? `no complete answer within ${options.timeoutMs} ms`
          : `the request failed (${message ?? String(error)})`;
      reject(new PublicFetchError(why, true, { cause: error }));
    };
    const req = send(url, requestOptions, (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.destroy();
        return reject(
          new PublicFetchError(`it answered ${status} (a redirect, which is not followed)`, false),
        );
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        return reject(new PublicFetchError(`it is larger than ${options.maxBytes} bytes`, false));
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) {
          response.destroy();
          reject(new PublicFetchError(`it is larger than ${options.maxBytes} bytes`, false));
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end(options.body);
  });
}
