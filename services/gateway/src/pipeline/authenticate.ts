/**
 * Step 5: bearer routes need a token in the Authorization header, and only there (a token in
 * the query string ends up in logs and is refused). The token is checked by introspection at
 * the auth service; while that service is not running, the answer is 503, never a guess. A token
 * issued for another audience than this API (RFC 8707) is refused like an unknown one. Every 401
 * names the protected-resource metadata (RFC 9728) so an OAuth client can find the authorization
 * server from the 401 alone.
 *
 * Rejected tokens are budgeted per client address (docs/adr/0026-auth-failure-budget-per-address.md):
 * a malformed Authorization header, a token introspection does not know (unknown, expired, revoked,
 * forged) and a token of another audience each count as one failure of the address the first step
 * recorded (behind TRUST_PROXY, the client's). Past the budget the failure is 429 RATE_LIMITED with
 * Retry-After, and until its window ends the address is refused before any introspection, whatever
 * token it sends: the point is to stop the load. A missing token does not count (it costs nothing
 * and is how OAuth clients discover the authorization server); a right token resets nothing.
 */
import type { Plan, TokenKind } from '@pag/contracts';
import { API_PREFIX, AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { state } from './state.ts';

/** What introspection says about an active token. */
export interface TokenIdentity {
  accountId: string;
  clientId: string;
  scopes: string[];
  /** Epoch seconds; undefined: valid until revoked. */
  expiresAt: number | undefined;
  /** The audiences the token was issued for (RFC 8707 resource indicators). */
  audience: string[];
  /** The owner's plan when the auth service states it. */
  plan: Plan | undefined;
  /** How the token came to be ('oauth' when the auth service does not say). */
  tokenKind: TokenKind;
  /** The agent the token belongs to; null when introspection names none. */
  agent: { id: string; name: string } | null;
  /** The agent's request limits per UTC day and month; null: no limit of that period. */
  limits: { daily: number | null; monthly: number | null };
}

/** RFC 7662 introspection, behind an interface so the gateway does not know how it is done. */
export interface Introspector {
  /** Resolves null for an unknown, expired or revoked token; rejects with 503/504 when auth is unreachable. */
  introspect(token: string, requestId: string): Promise<TokenIdentity | null>;
}

/** The budget of authentication failures per client address (the store in PostgreSQL). */
export interface AuthFailureBudget {
  readonly policy: { limit: number; windowSeconds: number };
  /** Seconds the address must wait before sending a token again (0: it may now); no I/O. */
  retryAfterSeconds(address: string): number;
  /** Counts one failure; resolves 0 within the budget, else the seconds until the address may retry. */
  recordFailure(address: string): Promise<number>;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

/** Where the API's protected-resource metadata is (RFC 9728, path-inserted form). */
export function resourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${API_PREFIX}`;
}

/** The WWW-Authenticate challenge of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(publicUrl: string, error?: string): string {
  const metadata = `resource_metadata="${resourceMetadataUrl(publicUrl)}"`;
  return error === undefined ? `Bearer ${metadata}` : `Bearer ${metadata}, error="${error}"`;
}

export function authenticate(
  publicUrl: string,
  introspector: Introspector | undefined,
  failures: AuthFailureBudget | undefined,
): RequestHandler {
  const apiAudience = `${publicUrl}${API_PREFIX}`;
  const refuse = (message: string, error: string) =>
    new AppError('INVALID_TOKEN', message, {
      headers: { 'www-authenticate': bearerChallenge(publicUrl, error) },
    });
  /** Answers a rejected token: 401 within the address's budget, 429 past it. */
  const fail = (res: Response, next: NextFunction, rejection: AppError) => {
    if (failures === undefined) return next(rejection);
    failures.recordFailure(state(res).clientAddress).then(
      (wait) => next(wait === 0 ? rejection : throttled(failures.policy, wait)),
      (error: unknown) =>
        next(
          new AppError(
            'SERVICE_UNAVAILABLE',
            'Rejected tokens cannot be counted: the database is unreachable.',
            {
              cause: error,
              expose: true,
            },
          ),
        ),
    );
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (typeof req.query.access_token === 'string') {
      next(new AppError('TOKEN_IN_QUERY', 'Tokens are not accepted in the query string.'));
      return;
    }
    if (state(res).route?.auth !== 'bearer') {
      next();
      return;
    }
    // A blocked address is refused before anything is spent on its token, right or wrong.
    const wait = failures?.retryAfterSeconds(state(res).clientAddress) ?? 0;
    if (wait > 0 && failures !== undefined) {
      next(throttled(failures.policy, wait));
      return;
    }
    const header = req.get('authorization');
    if (header === undefined) {
      next(
        new AppError('AUTHENTICATION_REQUIRED', 'This endpoint needs a bearer token.', {
          headers: { 'www-authenticate': bearerChallenge(publicUrl) },
        }),
      );
      return;
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      fail(res, next, refuse('The Authorization header must read "Bearer <token>".', 'invalid_request'));
      return;
    }
    if (introspector === undefined) {
      next(
        new AppError('SERVICE_UNAVAILABLE', 'Tokens cannot be checked: the auth service is not running.', {
          expose: true,
        }),
      );
      return;
    }
    introspector.introspect(token, state(res).requestId).then((identity) => {
      if (identity === null) {
        fail(res, next, refuse('The token is unknown, expired or revoked.', 'invalid_token'));
        return;
      }
      if (!identity.audience.includes(apiAudience)) {
        fail(
          res,
          next,
          refuse(
            `The token was issued for another audience; this API accepts ${apiAudience}.`,
            'invalid_token',
          ),
        );
        return;
      }
      state(res).identity = identity;
      next();
    }, next);
  };
}

/** The refusal of an address past its budget of rejected tokens. */
function throttled(policy: AuthFailureBudget['policy'], retryAfterSeconds: number): AppError {
  return new AppError(
    'RATE_LIMITED',
    `Too many rejected tokens from your address (at most ${policy.limit} in ${policy.windowSeconds} s): ` +
      `requests that need a token are refused for ${retryAfterSeconds} s.`,
    {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      hint: 'Check the token you send (a new one: POST /api/v1/handshakes), then retry after the time given in Retry-After.',
    },
  );
}
