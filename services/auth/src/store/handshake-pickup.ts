/**
 * The agent's side of a handshake after approval (docs/adr/0058): what its status poll answers,
 * and collecting the token with the verifier of its proof (the caller has checked the verifier).
 *
 * What it enforces:
 * - a token is collected once: the approved → collected update locks the row, so of concurrent
 *   collections one mints the token and the others find it collected;
 * - the mark and the mint commit together: a mint that fails rolls the mark back, so the agent
 *   can poll again; the collection's audit event (`handshake.collect`, actor the agent) is
 *   written in the same transaction (store/audit-outbox.ts), never with the token.
 */
import type { HandshakeStatus, HandshakeStatusValue } from '@pag/contracts';
import { HANDSHAKE_POLL_INTERVAL_SECONDS } from '@pag/contracts';
import { byAgent, grantDetail } from '../events/audit-decisions.ts';
import type { Handshake, PrismaClient } from '../generated/prisma/client.ts';
import type { AgentStore } from './agent-store.ts';
import { recordDecision } from './audit-outbox.ts';

/** What the agent's poll answers: the status body without the id. */
export type HandshakeProgress = Omit<HandshakeStatus, 'handshakeId'>;

/** A status poll: the verifier, when the agent sends one to collect its token. */
export interface StatusPoll {
  verifier?: string | undefined;
  /** The poll's request id, for the collection's audit event. */
  requestId: string;
}

/**
 * The poll's answer without a token: while pending, when to poll again; once the token was
 * collected, that it was (it is never answered again).
 */
export function progress(
  record: Pick<Handshake, 'tokenCollectedAt'>,
  status: HandshakeStatusValue,
): HandshakeProgress {
  return {
    status,
    ...(status === 'pending' ? { interval: HANDSHAKE_POLL_INTERVAL_SECONDS } : {}),
    ...(record.tokenCollectedAt === null ? {} : { tokenCollected: true }),
  };
}

/**
 * Marks the token of an approved handshake collected and mints it, in one transaction; null when
 * someone else collected it first (or its agent is gone).
 */
export async function collectToken(
  db: PrismaClient,
  agents: Pick<AgentStore, 'issueToken'>,
  record: Pick<Handshake, 'id' | 'agentId' | 'agentRef'>,
  requestId: string,
  now: Date,
): Promise<HandshakeProgress | null> {
  return db.$transaction(
    async (tx) => {
      // Locks the row: a concurrent collection waits here, then finds it collected.
      const taken = await tx.handshake.updateMany({
        where: { id: record.id, status: 'approved', tokenCollectedAt: null, codeChallenge: { not: null } },
        data: { tokenCollectedAt: now },
      });
      const agent =
        taken.count === 1 && record.agentId !== null
          ? await tx.agent.findUnique({ where: { id: record.agentId } })
          : null;
      if (agent === null) return null;
      const token = await agents.issueToken(agent);
      await recordDecision(tx, {
        by: byAgent(requestId, agent.id),
        accountId: agent.accountId,
        action: 'handshake.collect',
        target: record.id,
        agentId: agent.id,
        clientId: agent.clientId,
        detail: { agentRef: record.agentRef, ...grantDetail(agent) },
      });
      return {
        status: 'approved' as const,
        tokenCollected: true,
        token: {
          accessToken: token.value,
          tokenType: 'Bearer' as const,
          agentId: agent.id,
          scopes: agent.scopes,
          dailyLimit: agent.dailyLimit,
          monthlyLimit: agent.monthlyLimit,
          expiresAt: token.expiresAt.toISOString(),
        },
      };
    },
    { timeout: 15_000 },
  );
}
