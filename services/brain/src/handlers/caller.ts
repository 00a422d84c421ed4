/**
 * Who is asking, read again from what arrived: a bus message is only as trustworthy as its
 * sender, so the gateway's identity headers and the DispatchRequest are validated here too.
 * - pag-account-id (the tenant) must be a UUID: missing or malformed is 401 AUTHENTICATION_REQUIRED
 *   (no caller identity, no data), never a crash or another account's rows;
 * - pag-agent-id, when present, must look like an agent id (ResourceId): else 400 naming it;
 * - pag-scopes are the token's scopes: each handler of a route re-checks the route's scope with
 *   the contracts' matcher, so a sender that skipped the gateway's check gets 403 all the same;
 * - the payload must be a DispatchRequest: else 400 naming the field.
 */
import type { DispatchRequest } from '@pag/contracts';
import {
  AppError,
  DispatchRequest as DispatchRequestSchema,
  MessageHeaders,
  missingScope,
  requiredScope,
  routeById,
} from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';

const AccountId = z.uuid();
const AgentId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/);

export interface Caller {
  accountId: string;
  /** The calling agent; null when the token names none. */
  agentId: string | null;
  scopes: string[];
  requestId: string | undefined;
  request: DispatchRequest;
}

export function readCaller(msg: BusMessage<unknown>): Caller {
  const { headers } = msg;
  const account = AccountId.safeParse(headers[MessageHeaders.accountId]);
  if (!account.success) {
    throw new AppError(
      'AUTHENTICATION_REQUIRED',
      `The ${MessageHeaders.accountId} header is missing or not a UUID: no caller to answer for.`,
    );
  }
  const agentHeader = headers[MessageHeaders.agentId];
  const agent = AgentId.safeParse(agentHeader);
  if (agentHeader !== undefined && !agent.success) {
    throw new AppError('INVALID_REQUEST', `The ${MessageHeaders.agentId} header is not an agent id.`);
  }
  const request = DispatchRequestSchema.safeParse(msg.data);
  if (!request.success) throw invalidRequest('dispatch request', request.error);
  return {
    accountId: account.data,
    agentId: agent.success ? agent.data : null,
    scopes: (headers[MessageHeaders.scopes] ?? '').split(' ').filter((scope) => scope !== ''),
    requestId: headers[MessageHeaders.requestId],
    request: request.data,
  };
}

/** 403 unless the caller's scopes grant what the route (by id in the contracts' table) requires. */
export function requireRouteScope(caller: Caller, routeId: string): void {
  const route = routeById(routeId);
  const missing = missingScope(caller.scopes, requiredScope(route, caller.request.params, route.method));
  if (missing !== null) {
    throw new AppError('INSUFFICIENT_SCOPE', `This endpoint needs the scope ${missing}.`);
  }
}
