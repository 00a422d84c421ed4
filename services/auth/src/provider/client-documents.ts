/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, as the MCP
 * authorization spec uses them): a client whose id is an https URL needs no registration; its
 * metadata is the JSON document at that URL. docs/adr/0061 says why this is our adapter's `find`
 * rather than oidc-provider's experimental feature of the same name.
 *
 * What it enforces:
 * - the id is an https URL with a path (no fragment, no credentials, no dot segments); http only
 *   on a loopback address, and only with CIMD_ALLOW_LOOPBACK (tests);
 * - the fetch is kit's fetchPublic: public addresses only, resolved once and connected to, no
 *   redirect followed, at most DOCUMENT_MAX_BYTES within DOCUMENT_TIMEOUT_MS;
 * - the document is a JSON object whose `client_id` is exactly the URL, of a public client
 *   (token_endpoint_auth_method `none`; no secret), and passes the same registration policy as
 *   dynamic registration (registration-policy.ts: redirect URIs, grant types, forbidden keys,
 *   scopes, name);
 * - cached: a document for its Cache-Control max-age within [CACHE_MIN, CACHE_MAX] seconds
 *   (CACHE_DEFAULT without one), a refusal for FAILURE_CACHE_SECONDS; while its host is
 *   unreachable (timeout, network, 5xx) a document fetched before is used for up to
 *   STALE_SECONDS more, so tokens already issued keep working through a short outage of the
 *   client's site (introspection looks the client up);
 * - every refusal is invalid_client with a description saying what was wrong with the document.
 */
import type { PublicFetchResult } from '@pag/kit';
import { fetchPublic, PublicFetchError } from '@pag/kit';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { checkRegistration, prepareRegistration } from './registration-policy.ts';

export const DOCUMENT_MAX_BYTES = 5 * 1024;
export const DOCUMENT_TIMEOUT_MS = 3_000;
export const CACHE_MIN_SECONDS = 60;
export const CACHE_MAX_SECONDS = 24 * 3600;
export const CACHE_DEFAULT_SECONDS = 300;
export const FAILURE_CACHE_SECONDS = 10;
export const STALE_SECONDS = 24 * 3600;
const MAX_ENTRIES = 1_000;

/** Whether a client id names a metadata document (any http(s) URL; the rules refuse the bad ones). */
export function isDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** The host the owner is shown on the consent page for a document client; null for any other. */
export function documentHost(clientId: string): string | null {
  return isDocumentClientId(clientId) ? (URL.parse(clientId)?.host ?? null) : null;
}

function refuse(clientId: string, why: string): errors.InvalidClient {
  return new errors.InvalidClient(`the client metadata document at ${clientId} ${why}`);
}

/** The URL rules of a document client id; throws invalid_client naming the rule. */
export function checkDocumentUrl(clientId: string): URL {
  const url = URL.parse(clientId);
  if (url === null) throw refuse(clientId, 'cannot be fetched: the client_id is not a valid URL');
  if (clientId.includes('#'))
    throw refuse(clientId, 'cannot be fetched: the client_id must not contain a fragment');
  if (url.username !== '' || url.password !== '')
    throw refuse(clientId, 'cannot be fetched: the client_id must not contain credentials');
  if (url.pathname === '/' || url.pathname === '')
    throw refuse(clientId, 'cannot be fetched: the client_id URL must have a path');
  const rawPath = clientId.replace(/^https?:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  if (rawPath.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment)))
    throw refuse(clientId, 'cannot be fetched: the client_id must not contain . or .. path segments');
  return url;
}

/** What the document says, as the client's metadata; throws invalid_client naming the fault. */
export function documentMetadata(clientId: string, answer: PublicFetchResult): AdapterPayload {
  if (answer.status !== 200) throw refuse(clientId, `could not be fetched: it answered ${answer.status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw refuse(clientId, 'is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse(clientId, 'is not a JSON object');
  const document = { ...(parsed as Record<string, unknown>) };
  if (document.client_id !== clientId)
    throw refuse(
      clientId,
      `names client_id ${JSON.stringify(document.client_id)}; it must be its own URL exactly`,
    );
  if (document.client_secret !== undefined || document.client_secret_expires_at !== undefined)
    throw refuse(clientId, 'must not contain a client secret');
  document.token_endpoint_auth_method ??= 'none';
  if (document.token_endpoint_auth_method !== 'none')
    throw refuse(
      clientId,
      'must declare token_endpoint_auth_method "none": this server admits metadata documents of public clients only (PKCE protects the code; private_key_jwt is not supported)',
    );
  document.grant_types ??= ['authorization_code'];
  document.response_types ??= ['code'];
  try {
    prepareRegistration(document);
    checkRegistration(document as AdapterPayload);
  } catch (error) {
    if (error instanceof errors.OIDCProviderError)
      throw refuse(
        clientId,
        `breaks the registration policy: ${String((error as { error_description?: string }).error_description ?? error.message)}`,
      );
    throw error;
  }
  return document as AdapterPayload;
}

interface Entry {
  metadata: AdapterPayload | null;
  refusal: Error | null;
  /** Until when the entry answers without a fetch (epoch ms). */
  freshUntil: number;
  /** Until when a document stands in while its host is unreachable (epoch ms). */
  staleUntil: number;
}

export interface ClientDocumentsOptions {
  allowLoopback: boolean;
  /** DOCUMENT_TIMEOUT_MS unless given (tests). */
  timeoutMs?: number;
  now?: () => number;
}

function maxAgeSeconds(headers: PublicFetchResult['headers']): number {
  const control = String(headers['cache-control'] ?? '');
  if (/(?:^|,)\s*(?:no-store|no-cache)\b/i.test(control)) return CACHE_MIN_SECONDS;
  const match = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(control);
  const seconds = match?.[1] === undefined ? CACHE_DEFAULT_SECONDS : Number(match[1]);
  return Math.min(CACHE_MAX_SECONDS, Math.max(CACHE_MIN_SECONDS, seconds));
}

/** The documents fetched and cached for one provider (one per process). */
export class ClientDocuments {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<AdapterPayload>>();
  readonly #allowLoopback: boolean;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(options: ClientDocumentsOptions) {
    this.#allowLoopback = options.allowLoopback;
    this.#timeoutMs = options.timeoutMs ?? DOCUMENT_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The client's metadata from its document; throws invalid_client saying why not. */
  metadata(clientId: string): Promise<AdapterPayload> {
    const entry = this.#entries.get(clientId);
    if (entry !== undefined && entry.freshUntil > this.#now()) {
      if (entry.refusal !== null) return Promise.reject(entry.refusal);
      return Promise.resolve(entry.metadata as AdapterPayload);
    }
    let pending = this.#pending.get(clientId);
    if (pending === undefined) {
      pending = this.#load(clientId, entry).finally(() => this.#pending.delete(clientId));
      this.#pending.set(clientId, pending);
    }
    return pending;
  }

  async #load(clientId: string, previous: Entry | undefined): Promise<AdapterPayload> {
    checkDocumentUrl(clientId);
    const now = this.#now();
    try {
      const answer = await fetchPublic(clientId, {
        maxBytes: DOCUMENT_MAX_BYTES,
        timeoutMs: this.#timeoutMs,
        allowLoopback: this.#allowLoopback,
      });
      if (answer.status >= 500) throw new PublicFetchError(`it answered ${answer.status}`, true);
      const metadata = documentMetadata(clientId, answer);
      const freshUntil = now + maxAgeSeconds(answer.headers) * 1000;
      this.#store(clientId, {
        metadata,
        refusal: null,
        freshUntil,
        staleUntil: freshUntil + STALE_SECONDS * 1000,
      });
      return metadata;
    } catch (error) {
      const unreachable = error instanceof PublicFetchError && error.unreachable;
      const freshUntil = now + FAILURE_CACHE_SECONDS * 1000;
      if (unreachable && previous?.metadata && previous.staleUntil > now) {
        this.#store(clientId, { ...previous, freshUntil });
        return previous.metadata;
      }
      const refusal =
        error instanceof PublicFetchError
          ? refuse(clientId, `could not be fetched: ${error.message}`)
          : error;
      if (!(refusal instanceof errors.InvalidClient)) throw refusal;
      this.#store(clientId, { metadata: null, refusal, freshUntil, staleUntil: 0 });
      throw refusal;
    }
  }

  #store(clientId: string, entry: Entry): void {
    this.#entries.delete(clientId);
    this.#entries.set(clientId, entry);
    // Bounded: the entry stored longest ago goes first.
    if (this.#entries.size > MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}

/**
 * The adapter factory whose Client `find` answers a document client id from its document (the seam
 * oidc-provider's Client.find offers: it asks the adapter for every id it does not hold as static).
 */
export function withClientDocuments(factory: AdapterFactory, documents: ClientDocuments): AdapterFactory {
  return (model) => {
    const adapter = factory(model);
    if (model !== 'Client') return adapter;
    const withDocuments: Adapter = {
      upsert: (id, payload, expiresIn) => adapter.upsert(id, payload, expiresIn),
      find: (id) => (isDocumentClientId(id) ? documents.metadata(id) : adapter.find(id)),
      findByUid: (uid) => adapter.findByUid(uid),
      findByUserCode: (userCode) => adapter.findByUserCode(userCode),
      consume: (id) => adapter.consume(id),
      destroy: (id) => adapter.destroy(id),
      revokeByGrantId: (grantId) => adapter.revokeByGrantId(grantId),
    };
    return withDocuments;
  };
}
