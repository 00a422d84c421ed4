/**
 * The two OAuth loads, the same for the stack and the bare provider:
 * - introspection: a resource server asks about an access token as our introspection client
 *   does (POST, client_secret_basic, `token_type_hint=access_token`); each connection asks about
 *   its own token, and every answer must say `"active":true`;
 * - refresh grant: each connection redeems its own refresh token and sends the rotated one from
 *   the answer with its next request. The server accepts each refresh token once, so a lost or
 *   refused answer breaks the chain and every later request of that connection fails (non-2xx).
 */
import type autocannon from 'autocannon';
import type { LoadOptions } from './measure.ts';
import type { OAuthSubject, TokenPair } from './oauth-subject.ts';

type Load = Pick<LoadOptions, 'url' | 'headers' | 'connectionRequests' | 'verifyBody'>;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function ofConnection(tokens: readonly TokenPair[], index: number): TokenPair {
  const pair = tokens[index % tokens.length];
  if (pair === undefined) throw new Error('no tokens to load the server with');
  return pair;
}

/** `tokens`: whose access tokens are asked about, one per connection (shared when fewer). */
export function introspectionLoad(subject: OAuthSubject, tokens: readonly TokenPair[]): Load {
  const { clientId, clientSecret } = subject.introspectionClient;
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before the Basic encoding.
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
    'base64',
  );
  return {
    url: subject.url,
    headers: { ...FORM, authorization: `Basic ${basic}` },
    connectionRequests: (index) => [
      {
        method: 'POST',
        path: '/oauth/introspect',
        body: new URLSearchParams({
          token: ofConnection(tokens, index).accessToken,
          token_type_hint: 'access_token',
        }).toString(),
      },
    ],
    verifyBody: (body) => body.includes('"active":true'),
  };
}

/** `tokens`: one pair per connection, never shared (a chain is used up by the run). */
export function refreshChainLoad(subject: OAuthSubject, tokens: readonly TokenPair[]): Load {
  return {
    url: subject.url,
    headers: FORM,
    connectionRequests: (index) => {
      const pair = tokens[index];
      if (pair === undefined) throw new Error(`no refresh token left for connection ${index}`);
      return refreshChain(pair);
    },
    verifyBody: (body) => body.includes('"refresh_token"'),
  };
}

function refreshChain(pair: TokenPair): autocannon.Request[] {
  let refreshToken = pair.refreshToken;
  return [
    {
      method: 'POST',
      path: '/oauth/token',
      // Built before each request, after the previous answer was read (pipelining 1).
      setupRequest: (request) => ({
        ...request,
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: pair.clientId,
        }).toString(),
      }),
      onResponse: (status, body) => {
        if (status !== 200) return;
        const answer = JSON.parse(body) as { refresh_token?: unknown };
        if (typeof answer.refresh_token === 'string') refreshToken = answer.refresh_token;
      },
    },
  ];
}
