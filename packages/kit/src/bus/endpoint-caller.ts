/**
 * Who is asking, read from what arrived: a bus message is only as trustworthy as its sender, so
 * the gateway's `pag-*` headers (MessageHeaders) are validated before any handler runs.
 * - every caller has a request id (the one it came with when safe to log, else a new one) and a
 *   logger whose every line carries it;
 * - a route's caller has the client's address as the gateway saw it;
 * - a bearer route's caller must name its account with a UUID: missing or malformed is 401
 *   AUTHENTICATION_REQUIRED (no caller identity, no data), never a crash or another account's
 *   rows; pag-agent-id, when present, must look like an agent id (else 400 naming the header);
 *   pag-scopes are the token's scopes, which serveEndpoints re-checks against the route's scope;
 *   its `stream` is the request's ReplyStream when the requester asked for a streamed reply.
 */
import type { EndpointCaller } from '@pag/contracts';
import { AppError, MessageHeaders, requestIdFor } from '@pag/contracts';
import { z } from 'zod';
import type { Logger } from '../log/logger.ts';
import type { Headers, ReplyStream } from './types.ts';

/** A service asking for itself. */
export interface ServiceCaller {
  requestId: string;
  /** The request's logger: every line carries the request id and the subject. */
  logger: Logger;
}

/** Whoever called a route, token or not. */
export interface AnonymousCaller extends ServiceCaller {
  /** The caller's network address as the gateway saw it; undefined without the gateway's header. */
  clientAddress: string | undefined;
}

/** The owner account a bearer route acts for, and the token's agent and scopes. */
export interface AccountCaller extends AnonymousCaller {
  accountId: string;
  /** The calling agent; null when the token names none. */
  agentId: string | null;
  /** The token's OAuth client (pag-client-id), for audit records; null when the sender named none. */
  clientId: string | null;
  scopes: string[];
  /**
   * Non-null only when the requester asked for a streamed reply (a stream route asked with
   * `Accept: text/event-stream`): events sent here reach the client before the reply. The handler
   * returns its reply as always; its `signal` aborts when the client went away.
   */
  readonly stream: ReplyStream | null;
}

export type CallerOf<C extends EndpointCaller> = C extends 'account'
  ? AccountCaller
  : C extends 'anonymous'
    ? AnonymousCaller
    : ServiceCaller;

const AccountId = z.uuid();
/** Only kept for the audit log's clientId (at most 200 characters there); anything else is dropped. */
const ClientId = z.string().min(1).max(200);
const AgentId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/);

export function readCaller(
  kind: EndpointCaller,
  headers: Headers,
  logger: Logger,
  stream: ReplyStream | null = null,
): AccountCaller | AnonymousCaller | ServiceCaller {
  const requestId = requestIdFor(headers[MessageHeaders.requestId]);
  const service: ServiceCaller = { requestId, logger: logger.child({ requestId }) };
  if (kind === 'service') return service;
  const anonymous: AnonymousCaller = { ...service, clientAddress: headers[MessageHeaders.clientAddress] };
  if (kind === 'anonymous') return anonymous;
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
  return {
    ...anonymous,
    accountId: account.data,
    agentId: agent.success ? agent.data : null,
    clientId: ClientId.safeParse(headers[MessageHeaders.clientId]).data ?? null,
    scopes: (headers[MessageHeaders.scopes] ?? '').split(' ').filter((scope) => scope !== ''),
    stream,
  };
}
