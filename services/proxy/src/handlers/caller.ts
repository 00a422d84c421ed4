/**
 * Who asks on the bus: the owner account and scopes the gateway put in the message headers
 * (MessageHeaders) after introspecting the token. A bus message is only as trustworthy as its
 * sender, so the headers are validated: no account, or one that is not a UUID, is refused rather
 * than read as "nobody" (which would match no rows and look like an empty account).
 */
import { AppError, MessageHeaders, scopeGrants } from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { z } from 'zod';

const AccountId = z.uuid();

export interface Caller {
  accountId: string;
  scopes: string[];
  requestId: string | undefined;
}

export function callerOf(msg: BusMessage<unknown>): Caller {
  const accountId = AccountId.safeParse(msg.headers[MessageHeaders.accountId]);
  if (!accountId.success) {
    throw new AppError(
      'AUTHENTICATION_REQUIRED',
      `The request carries no valid ${MessageHeaders.accountId} header: the gateway authenticates callers first.`,
    );
  }
  const scopes = (msg.headers[MessageHeaders.scopes] ?? '').split(' ').filter((scope) => scope !== '');
  return { accountId: accountId.data, scopes, requestId: msg.headers[MessageHeaders.requestId] };
}

/** The same scope the route table requires, checked again here (the gateway checked it first). */
export function requireScope(caller: Caller, scope: string): void {
  if (!scopeGrants(caller.scopes, scope)) {
    throw new AppError(
      'INSUFFICIENT_SCOPE',
      `This needs the scope ${scope}, which the token does not grant.`,
    );
  }
}
