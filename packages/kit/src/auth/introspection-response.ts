/**
 * Reads an RFC 7662 answer. Only a bearer access token counts as active: the auth service also
 * introspects refresh tokens (no `token_type`) and sender-constrained ones (`DPoP`, or a `cnf`
 * claim), and none of those may be used as a bearer token. An answer
 * that is not an introspection response at all is the auth service's fault (503), never read as
 * "inactive", so a broken auth service cannot pass for a wave of revoked tokens.
 */
import { AppError } from '@pag/contracts';
import { z } from 'zod';
import type { ActiveToken } from './introspection-types.ts';

const seconds = z.number().int().nonnegative();

const WireAnswer = z.looseObject({
  active: z.boolean(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  sub: z.string().optional(),
  account_id: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  exp: seconds.optional(),
  iat: seconds.optional(),
  token_type: z.string().optional(),
  cnf: z.unknown().optional(),
});

const KNOWN = new Set([
  'active',
  'scope',
  'client_id',
  'sub',
  'account_id',
  'aud',
  'exp',
  'iat',
  'token_type',
]);

/** The active token, or null when the auth service says it is not active. */
export function readIntrospectionAnswer(body: unknown): ActiveToken | null {
  const parsed = WireAnswer.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'The auth service answered introspection with an unexpected body.',
      {
        cause: parsed.error,
      },
    );
  }
  const answer = parsed.data;
  if (!answer.active || answer.client_id === undefined) return null;
  if (answer.token_type?.toLowerCase() !== 'bearer' || answer.cnf !== undefined) return null;
  const extra = Object.fromEntries(Object.entries(answer).filter(([key]) => !KNOWN.has(key)));
  return {
    scopes: (answer.scope ?? '').split(' ').filter((scope) => scope !== ''),
    clientId: answer.client_id,
    accountId: answer.account_id ?? answer.sub,
    subject: answer.sub,
    audience: answer.aud === undefined ? [] : typeof answer.aud === 'string' ? [answer.aud] : answer.aud,
    expiresAt: answer.exp,
    issuedAt: answer.iat,
    tokenType: answer.token_type,
    extra,
  };
}
