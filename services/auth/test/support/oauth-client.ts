/**
 * The client side of the flows the tests run, over plain HTTP against the running service: an
 * owner account, dynamic registration, PKCE, the authorization through the login and consent
 * forms (a browser with a cookie jar that stops at the first redirect leaving the server), and
 * token endpoint calls.
 */
import { createHash, randomBytes } from 'node:crypto';
import { byOperator } from '../../src/events/audit-decisions.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { AccountStore } from '../../src/store/account-store.ts';

export const OWNER = { email: 'owner@example.test', password: 'correct horse battery staple' };
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export async function createOwner(db: PrismaClient, owner = OWNER): Promise<string> {
  const account = await new AccountStore(db).create(owner, byOperator());
  return account.id;
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(base: string, metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test agent',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
}

export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<string> {
  const response = await register(base, metadata);
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 || body.client_id === undefined) {
    throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.client_id;
}

export function authorizationUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL('/oauth/authorize', base);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

function formOf(html: string, actionPart: string): { action: string; fields: Record<string, string> } | null {
  for (const match of html.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/gi)) {
    const [, action = '', inner = ''] = match;
    if (!action.includes(actionPart)) continue;
    const fields: Record<string, string> = {};
    // What a browser sends: hidden fields and ticked boxes (the consent form's scopes).
    for (const input of inner.matchAll(/<input\b[^>]*>/gi)) {
      const hidden = /type="hidden"/.test(input[0]);
      const ticked = /type="checkbox"/.test(input[0]) && /\schecked\b/.test(input[0]);
      if (!hidden && !ticked) continue;
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      const value = /value="([^"]*)"/.exec(input[0])?.[1];
      if (name !== undefined) fields[name] = value ?? '';
    }
    return { action, fields };
  }
  return null;
}

/**
 * Opens an authorization URL as the owner's browser would: signs in and allows on the way, and
 * returns the URL the server finally redirects to outside itself (the client's redirect URI, with
 * `code` or `error`), or throws with the page it got stuck on.
 */
export async function authorizeInBrowser(base: string, url: string, owner = OWNER): Promise<URL> {
  const cookies = new Map<string, string>();
  let target = new URL(url);
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop += 1) {
    const response = await fetch(target, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    if (location !== null && response.status >= 300 && response.status < 400) {
      target = new URL(location, target);
      init = {};
      if (target.origin !== new URL(base).origin) return target;
      continue;
    }
    const html = await response.text();
    const login = formOf(html, '/login');
    const consent = formOf(html, '/confirm');
    const form = login ?? consent;
    if (form === null) throw new Error(`stuck at ${target} (${response.status}):\n${html}`);
    const values =
      login === null ? form.fields : { ...form.fields, email: owner.email, password: owner.password };
    target = new URL(form.action, target);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(values).toString(),
    };
  }
  throw new Error('too many redirects');
}

export async function tokenRequest(base: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
}

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  expires_in: number;
}

/** Registration, authorization and code exchange in one: the happy path other tests start from. */
export async function obtainTokens(
  base: string,
  options: { clientId?: string; scope?: string } = {},
): Promise<{ clientId: string; tokens: TokenSet }> {
  const clientId = options.clientId ?? (await registerClient(base));
  const { verifier, challenge } = pkce();
  const callback = await authorizeInBrowser(
    base,
    authorizationUrl(base, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: options.scope ?? 'read chat',
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${base}/api/v1`,
    }),
  );
  const code = callback.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${callback}`);
  const response = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
  });
  if (response.status !== 200)
    throw new Error(`code exchange failed: ${response.status} ${await response.text()}`);
  return { clientId, tokens: (await response.json()) as TokenSet };
}

export async function introspect(
  base: string,
  token: string,
  credentials: { clientId: string; clientSecret: string },
) {
  return fetch(`${base}/oauth/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }).toString(),
  });
}
