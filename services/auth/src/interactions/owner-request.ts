/**
 * Who decides on an owner's page (sign-up, sign-in, sign-out, consent): the owner, on the request
 * with the gateway's id, which the decision's audit event keeps (events/audit-decisions.ts).
 */
import { MessageHeaders } from '@pag/contracts';
import type { Context } from 'koa';
import type { DecidedBy } from '../events/audit-decisions.ts';
import { byOwner } from '../events/audit-decisions.ts';

export function ownerRequest(ctx: Context): DecidedBy {
  return byOwner(ctx.get(MessageHeaders.requestId));
}
