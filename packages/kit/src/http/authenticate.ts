/**
 * Bearer authentication of a resource server: routes whose table entry says `auth: 'bearer'`
 * need a token in the Authorization header, and only there (a token in the query string ends up
 * in logs and is refused on every route). The token is checked by RFC 7662 introspection at the
 * auth service; while that service is not running, or answers late, the answer is 503/504, never
 * a guess. The token must be active, issued for this API (`${publicUrl}/api/v1`, RFC 8707) and
 * act for an owner account the server accepts. Every refusal is a 401 whose challenge names the
 * protected-resource metadata (RFC 9728), so an OAuth client can find the authorization server
 * from the 401 alone, with `error_description`; its code says what is wrong, which the caller may
 * know since it holds the token (docs/adr/0062): MALFORMED_TOKEN (not "Bearer <token>", or a text
 * with our prefix but not our shape), TOKEN_EXPIRED, TOKEN_REVOKED, else INVALID_TOKEN (unknown,
 * another audience, no owner account: nothing about similar tokens is told). The hint names the
 * remedy for the token's kind (the contracts' token-remedies.ts).
 *
 * Optionally, rejected tokens are budgeted per client address
 * (docs/adr/0026-auth-failure-budget-per-address.md): a malformed Authorization header and every
 * refused token count as one failure of the address the first step recorded. Past the budget the
 * failure is 429 RATE_LIMITED with Retry-After, and until its window ends the address is refused
 * before any introspection, whatever token it sends. A missing token does not count (it costs
 * nothing and is how OAuth clients discover the authorization server).
 */
import type { ErrorCode, IssuedTokenKind, RouteDefinition, RouteParams } from '@pag/contracts';
import {
  API_PREFIX,
  AppError,
  expiredTokenHint,
  isMalformedToken,
  protectedResourceIds,
  protectedResourceMetadataUrl,
  protectedResourceOfPath,
  requiredScope,
  revokedTokenHint,
  tokenKindOf,
  unknownTokenHint,
} from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ActiveToken, TokenCheck } from '../auth/introspection-types.ts';
import type { BearerIdentity, ResourceState } from './state.ts';
import { resourceState } from './state.ts';

/** How a server learns who a token acts for. */
export interface BearerIntrospector<I extends BearerIdentity> {
  /** RFC 7662 (kit's IntrospectionClient.check): the active token or why it is not; rejects with 503/504. */
  check(token: string, options: { requestId: string }): Promise<TokenCheck>;
  /**
   * The identity kept for an active token of this API acting for `accountId`; null when the server
   * does not accept that account (refused like a token acting for none). May throw an AppError.
   */
  identify(active: ActiveToken, accountId: string): I | null;
}

/** The budget of authentication failures per client address. */
export interface AuthFailureBudget {
  readonly policy: { limit: number; windowSeconds: number };
  /** Seconds the address must wait before sending a token again (0: it may now); no I/O. */
  retryAfterSeconds(address: string): number;
  /** Counts one failure; resolves 0 within the budget, else the seconds until the address may retry. */
  recordFailure(address: string): Promise<number>;
}

export interface AuthenticateOptions<I extends BearerIdentity> {
  publicUrl: string;
  /** Undefined while no auth service is reachable: bearer routes answer 503. */
  introspector: BearerIntrospector<I> | undefined;
  failures?: AuthFailureBudget | undefined;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

export interface ChallengeOptions {
  /** RFC 6750 error code (invalid_token, invalid_request, insufficient_scope). */
  error?: string | undefined;
  /** The request's path: names the metadata of its resource (the API's when absent). */
  path?: string | undefined;
  /** The scopes the request needs (RFC 6750 `scope`), space-separated. */
  scope?: string | null | undefined;
  /** Human-readable words on the error (RFC 6750 `error_description`). */
  description?: string | undefined;
}

/** The WWW-Authenticate challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(publicUrl: string, options: ChallengeOptions = {}): string {
  // The metadata of the resource the path belongs to, at its path-inserted well-known URL.
  const resource = protectedResourceOfPath(options.path ?? API_PREFIX);
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(publicUrl, resource)}"`];
  if (options.error !== undefined) parts.push(`error="${options.error}"`);
  // RFC 6750 §3: a quoted string of printable ASCII without '"' and '\'.
  if (options.description)
    parts.push(`error_description="${options.description.replace(/[^\x20-\x7e]|["\\]/g, "'")}"`);
  if (options.scope) parts.push(`scope="${options.scope}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * The scope a challenge on this route asks for: the route's own, or for a route that needs none
 * beyond a valid token the set it suggests (the MCP endpoint), so a client does not ask for all.
 */
export function challengeScope(route: RouteDefinition | undefined, params: RouteParams, method: string) {
  if (route === undefined) return null;
  return route.challengeScopes?.join(' ') ?? requiredScope(route, params, method);
}

type Challenge = (error?: string, description?: string) => string;

/** A refusal's code, message and, for a token of a known kind, the hint that fits it. */
interface Refusal {
  code: Extract<ErrorCode, 'INVALID_TOKEN' | 'MALFORMED_TOKEN' | 'TOKEN_EXPIRED' | 'TOKEN_REVOKED'>;
  message: string;
  hint?: string | undefined;
  /** RFC 6750: invalid_request for a request that is not "Bearer <token>", else invalid_token. */
  error?: 'invalid_request' | 'invalid_token';
}

/** Why an inactive token was refused, with the remedy for its kind. */
function inactiveRefusal(
  reason: 'expired' | 'revoked' | 'unknown',
  kind: IssuedTokenKind | undefined,
): Refusal {
  if (reason === 'expired')
    return { code: 'TOKEN_EXPIRED', message: 'The token has expired.', hint: expiredTokenHint(kind) };
  if (reason === 'revoked')
    return { code: 'TOKEN_REVOKED', message: 'The token was revoked.', hint: revokedTokenHint(kind) };
  const message = kind === 'refresh' ? 'A refresh token is not accepted here.' : 'The token is not known.';
  return { code: 'INVALID_TOKEN', message, hint: unknownTokenHint(kind) };
}

export function authenticate<I extends BearerIdentity>(options: AuthenticateOptions<I>): RequestHandler {
  const { publicUrl, introspector, failures } = options;
  // The gateway's three resource identifiers are one server: a token for any of them is accepted.
  const audiences = new Set(protectedResourceIds(publicUrl));
  const refuse = (challenge: Challenge, refusal: Refusal) =>
    answerError(
      () =>
        new AppError(refusal.code, refusal.message, {
          headers: { 'www-authenticate': challenge(refusal.error ?? 'invalid_token', refusal.message) },
          ...(refusal.hint === undefined ? {} : { hint: refusal.hint }),
        }),
    );
  /** Answers a rejected token: 401 within the address's budget, 429 past it. */
  const fail = (res: Response, next: NextFunction, rejection: AppError) => {
    if (failures === undefined) return next(rejection);
    failures.recordFailure(resourceState(res).clientAddress).then(
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
  /** The identity of an active token, or the refusal to answer with. */
  const accept = (
    reader: BearerIntrospector<I>,
    checked: TokenCheck,
    challenge: Challenge,
    token: string,
  ): I | AppError => {
    const { active } = checked;
    if (active === null) return refuse(challenge, inactiveRefusal(checked.reason, tokenKindOf(token)));
    if (!active.audience.some((audience) => audiences.has(audience))) {
      const message = `The token was issued for another audience; this server accepts ${[...audiences].join(', ')}.`;
      return refuse(challenge, { code: 'INVALID_TOKEN', message });
    }
    const identity = active.accountId === undefined ? null : reader.identify(active, active.accountId);
    return (
      identity ??
      refuse(challenge, { code: 'INVALID_TOKEN', message: 'The token acts for no owner account.' })
    );
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (typeof req.query.access_token === 'string') {
      next(new AppError('TOKEN_IN_QUERY', 'Tokens are not accepted in the query string.'));
      return;
    }
    const state = resourceState<ResourceState<I>>(res);
    if (state.route?.auth !== 'bearer') {
      next();
      return;
    }
    // A blocked address is refused before anything is spent on its token, right or wrong.
    const wait = failures?.retryAfterSeconds(state.clientAddress) ?? 0;
    if (wait > 0 && failures !== undefined) {
      next(throttled(failures.policy, wait));
      return;
    }
    // Names the request's resource (API, MCP endpoint or base URL) and the scope its route needs.
    const challenge: Challenge = (error, description) =>
      bearerChallenge(publicUrl, {
        error,
        description,
        path: req.path,
        scope: challengeScope(state.route, state.params ?? {}, req.method),
      });
    const header = req.get('authorization');
    if (header === undefined) {
      next(
        new AppError('AUTHENTICATION_REQUIRED', 'This endpoint needs a bearer token.', {
          headers: { 'www-authenticate': challenge() },
        }),
      );
      return;
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined || isMalformedToken(token)) {
      const message =
        token === undefined
          ? 'The Authorization header must read "Bearer <token>".'
          : 'The token is not in the form the gateway issues (pag_<kind>_ and 65 characters).';
      const error = token === undefined ? 'invalid_request' : 'invalid_token';
      fail(res, next, refuse(challenge, { code: 'MALFORMED_TOKEN', message, error }));
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
    introspector.check(token, { requestId: state.requestId }).then((checked) => {
      let identity: I | AppError;
      try {
        identity = accept(introspector, checked, challenge, token);
      } catch (error) {
        next(error);
        return;
      }
      if (identity instanceof AppError) {
        fail(res, next, identity);
        return;
      }
      state.identity = identity;
      next();
    }, next);
  };
}

/**
 * An error that is an answer (a refusal), built without a stack trace: nothing logs one for a 4xx
 * (the error handler logs stacks of unexpected errors only), and V8's capture of it, through the
 * request's async frames, was the largest single cost of a rejected token after the failure
 * count's statement (docs/adr/0079). Synchronous, so no other code runs with the limit at 0.
 */
function answerError(make: () => AppError): AppError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The refusal of an address past its budget of rejected tokens. */
function throttled(policy: AuthFailureBudget['policy'], retryAfterSeconds: number): AppError {
  return answerError(
    () =>
      new AppError(
        'RATE_LIMITED',
        `Too many rejected tokens from your address (at most ${policy.limit} in ${policy.windowSeconds} s): ` +
          `requests that need a token are refused for ${retryAfterSeconds} s.`,
        {
          headers: { 'Retry-After': String(retryAfterSeconds) },
          hint: 'Check the token you send (a new one: POST /api/v1/handshakes), then retry after the time given in Retry-After.',
        },
      ),
  );
}
