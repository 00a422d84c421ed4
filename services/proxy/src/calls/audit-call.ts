/**
 * One `proxy.call` action event per call the brain has the proxy make (proxy.calls.forward,
 * docs/adr/0041): who (the agent), for which owner, which service, the method, host and path
 * called (never the query string, headers, credentials or bodies), the connected service's status
 * (or, when it failed, no status, decision `error` and the error code), and how long it took to
 * answer. A call that comes through the gateway has no event of its own: the gateway's request
 * row holds these facts, told by the proxy before the answer (http/report-call.ts, docs/adr/0069).
 *
 * The answer is never held for it. A publish that fails is logged with the request id. close()
 * waits for the publishes still under way, so a clean shutdown loses none.
 */
import type { AuditDecision } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { actionAuditPublisher } from '@pag/kit';

/** The call as forwarded, with its outcome. */
export interface ForwardedCall {
  requestId: string;
  accountId: string;
  clientId: string | null;
  agentId: string | null;
  service: string;
  method: string;
  /** The connected service's host and the path called upstream, without the query string. */
  host: string;
  path: string;
  /** The upstream status; null when no answer came (then decision and reason say why). */
  status: number | null;
  decision: AuditDecision;
  reason: string | null;
  latencyMs: number;
}

export interface CallAudit {
  record(call: ForwardedCall): void;
  /** Resolves once every publish started has settled. */
  close(): Promise<void>;
}

/** The contract's limit on a detail string. */
const DETAIL_MAX = 500;

export function callAudit(bus: Bus, logger: Logger): CallAudit {
  const publisher = actionAuditPublisher('proxy', bus, logger);
  return {
    record(call) {
      publisher.record(
        {
          requestId: call.requestId,
          accountId: call.accountId,
          clientId: call.clientId,
          agentId: call.agentId,
          actor: { type: 'agent', id: call.agentId },
          action: 'proxy.call',
          target: call.service,
          decision: call.decision,
          reason: call.reason,
          status: call.status,
          latencyMs: call.latencyMs,
          detail: { method: call.method, host: call.host, path: call.path.slice(0, DETAIL_MAX) },
        },
        { requestId: call.requestId, service: call.service },
      );
    },
    close: () => publisher.close(),
  };
}
