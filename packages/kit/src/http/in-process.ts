/**
 * A resource server's entry for a request handed over in the same process (the embedded stack's
 * gateway hands `/api/v1/services/*` to the proxy this way, docs/adr/0069): the request and its
 * response as the gateway received them, and the caller the gateway has already verified, as an
 * object in memory. Never as headers: a header anyone on the network could send, and a signed
 * one would make the signing secret alone enough to act as any owner (docs/adr/0067); an object
 * passed by a function call in one process can only come from that process.
 *
 * The server runs its own steps after authentication on it (scope, its own checks, the call,
 * its error handler) and reports what became of the call; `next` is called only when it did not
 * answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxiedCall, RouteDefinition, RouteParams } from '@pag/contracts';

/** Who is calling, as introspection at the auth service told the gateway. */
export interface VerifiedCaller {
  requestId: string;
  /** When the request arrived (process.hrtime.bigint()), for durations measured from arrival. */
  startedAt: bigint;
  clientAddress: string;
  accountId: string;
  clientId: string;
  scopes: readonly string[];
  /** The agent the token belongs to; null when introspection named none. */
  agentId: string | null;
}

/** What comes with a request handed over, besides the request and its response. */
export interface Handover {
  caller: VerifiedCaller;
  /**
   * The route of the contracts' table the gateway matched for this request, and its parameters:
   * one table, one match (docs/adr/0074). The server checks that it serves the route.
   */
  route: RouteDefinition;
  params: RouteParams;
  /**
   * Told what became of the call before its answer starts (the facts of the gateway's one audit
   * row of it, docs/adr/0069); over HTTP the same facts come in the answer's PROXY_CALL_HEADER.
   */
  report(call: ProxiedCall): void;
}

export type InProcessEntry = (
  req: IncomingMessage,
  res: ServerResponse,
  handover: Handover,
  next: (error?: unknown) => void,
) => void;
