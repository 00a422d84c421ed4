/**
 * What of an oidc-provider payload rests in the database, and how it is rebuilt on read.
 *
 * What it enforces: the record's own id (`jti`, for tokens the token value) never rests in the
 * payload, it is put back from the id the caller looked up; an interaction's copy of the session
 * cookie value (`session.cookie`, which oidc-provider keeps for applications and never reads) is
 * dropped; `consumed` lives in the consumed_at column, set atomically, never in the JSON; a payload
 * with text PostgreSQL cannot store (a NUL character or an unpaired surrogate anywhere: a client
 * name at registration, an authorization request's `state` kept in its interaction) is refused
 * with the OAuth error the request then gets (RFC 7591 invalid_client_metadata for a client, else
 * invalid_request), never written. Every oidc-provider record passes through here; without it
 * jsonb refuses the row (22P05, 22P02) and oidc-provider answers 500 server_error. (The JSON text
 * carries such characters as escapes, so the database guard of kit, which sees only that text,
 * cannot tell.)
 */
import { findUnstorableText } from '@pag/contracts';
import type { AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';

/** Models whose payloads are plain client metadata rather than oidc-provider's BaseModel records. */
const WITHOUT_JTI = new Set(['Client']);

export interface StoredColumns {
  payload: string;
  grantId: string | null;
  uid: string | null;
  accountId: string | null;
  clientId: string | null;
  consumed: boolean;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function refuseUnstorableText(model: string, payload: AdapterPayload): void {
  const found = findUnstorableText(payload);
  if (found === null) return;
  if (model === 'Client') throw new errors.InvalidClientMetadata(`${found.path} ${found.reason}`);
  // An interaction or session keeps the request's parameters under params.
  const name = found.path.replace(/^params\./, '');
  throw new errors.InvalidRequest(`${name} ${found.reason}`);
}

export function encodePayload(model: string, payload: AdapterPayload): StoredColumns {
  refuseUnstorableText(model, payload);
  const { jti: _jti, consumed, ...rest } = payload;
  if (model === 'Interaction' && rest.session?.cookie !== undefined) {
    const { cookie: _cookie, ...session } = rest.session;
    rest.session = session;
  }
  return {
    payload: JSON.stringify(rest),
    grantId: text(payload.grantId),
    uid: model === 'Session' ? text(payload.uid) : null,
    accountId: text(payload.accountId) ?? text(payload.session?.accountId),
    clientId: text(payload.clientId) ?? text(payload.client_id),
    consumed: Boolean(consumed),
  };
}

/**
 * The payload as oidc-provider wrote it. `id` is the raw id looked up (undefined when found by a
 * secondary key such as a session's uid: the caller never needs it there).
 */
export function decodePayload(
  model: string,
  stored: unknown,
  id: string | undefined,
  consumedAt: Date | null,
): AdapterPayload {
  const payload = { ...(stored as AdapterPayload) };
  if (id !== undefined && !WITHOUT_JTI.has(model)) payload.jti = id;
  if (consumedAt !== null) payload.consumed = Math.floor(consumedAt.getTime() / 1000);
  return payload;
}
