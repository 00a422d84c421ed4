/**
 * One `chat.reply` action event per chat request that reached the model (or the offline brain),
 * docs/adr/0041: the agent as actor, the conversation as target, the provider, model and token
 * usage in the detail, and the outcome (allowed, or error with the code). Never the message or
 * the reply. The reply is not held for it: the gateway's request event of the same request is
 * stored before the answer leaves the gateway. A failed publish is logged with the request id;
 * close() waits for publishes under way.
 */
import type { AuditDecision, ChatUsage } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { actionAuditPublisher } from '@pag/kit';

export interface ChatOutcome {
  requestId: string;
  accountId: string;
  clientId: string | null;
  agentId: string | null;
  /** null when the conversation was never made (a failed first message). */
  conversationId: string | null;
  provider: 'openai-compatible' | 'offline';
  /** Owner's or deployment's provider; null offline. */
  providerSource: 'owner' | 'deployment' | null;
  model: string;
  usage: ChatUsage | null;
  decision: AuditDecision;
  reason: string | null;
  latencyMs: number;
}

export interface ChatAudit {
  record(outcome: ChatOutcome): void;
  close(): Promise<void>;
}

export function chatAudit(bus: Bus, logger: Logger): ChatAudit {
  const publisher = actionAuditPublisher('brain', bus, logger);
  return {
    record(outcome) {
      publisher.record(
        {
          requestId: outcome.requestId,
          accountId: outcome.accountId,
          clientId: outcome.clientId,
          agentId: outcome.agentId,
          actor: { type: 'agent', id: outcome.agentId },
          action: 'chat.reply',
          target: outcome.conversationId,
          decision: outcome.decision,
          reason: outcome.reason,
          status: null,
          latencyMs: outcome.latencyMs,
          detail: {
            provider: outcome.provider,
            providerSource: outcome.providerSource,
            model: outcome.model.slice(0, 200),
            promptTokens: outcome.usage?.promptTokens ?? null,
            completionTokens: outcome.usage?.completionTokens ?? null,
          },
        },
        { requestId: outcome.requestId },
      );
    },
    close: () => publisher.close(),
  };
}
