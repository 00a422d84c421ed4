/**
 * Handshakes: an agent without a token asks an owner for access; the owner approves (with the
 * requested scopes or fewer, optional limits, an expiry) or denies. Approval makes an agent of
 * kind `handshake`; both stop working at the expiry, by default 90 days after approval
 * (handshake-rules.ts). Its token reaches the agent one of two ways (docs/adr/0058):
 * - pickup: the agent gave a codeChallenge (S256) when asking; approval mints no token, and the
 *   agent's first status poll with the matching verifier collects one, once;
 * - owner: without a challenge, approval mints the token and the owner shares it out of band.
 *
 * What it enforces:
 * - assignment: with exactly one owner account the handshake is that owner's at once; otherwise it
 *   is nobody's until an owner claims it with the claim code (stored as SHA-256 only);
 * - creation limits (creation-limits.ts: per address and owner queue, per address and agentId),
 *   counted in PostgreSQL under an advisory lock on the client address, so concurrent creations
 *   cannot both slip under a limit;
 * - tenancy: every owner-side read and decision names the owner account; another owner's, an
 *   unassigned or an unknown handshake is "not found", and so is a claim code of another owner's;
 * - a decision is taken once: approving or denying a decided handshake is a CONFLICT, and two
 *   approvals at once make one agent (the pending → approved update locks the row);
 * - the status follows the token: an approved handshake whose agent was revoked reads `denied`;
 * - every decision (claim, approve, deny) and the collection writes its audit event in its own
 *   transaction (store/audit-outbox.ts), naming who decided (DecidedBy);
 * - a token is collected once (store/handshake-pickup.ts); a verifier that does not match is
 *   refused the same way whatever the handshake's state.
 */
import type { HandshakeScope } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { newId } from '../agents/agent-rules.ts';
import type { DecidedBy } from '../events/audit-decisions.ts';
import { grantDetail } from '../events/audit-decisions.ts';
import type { AuthEvents } from '../events/auth-events.ts';
import type { Handshake, PrismaClient } from '../generated/prisma/client.ts';
import {
  claimCodeHash,
  claimUrl,
  clientAddressHash,
  newClaimCodeWithHash,
} from '../handshakes/claim-code.ts';
import type { CreationLimits } from '../handshakes/creation-limits.ts';
import { creationRefusal, DEFAULT_CREATION_LIMITS, HOUR_SECONDS } from '../handshakes/creation-limits.ts';
import {
  assertPending,
  defaultHandshakeExpiry,
  effectiveStatus,
  grantedScopes,
  isHandshakeId,
  notFound,
} from '../handshakes/handshake-rules.ts';
import { proofMatches, proofMismatch } from '../handshakes/pickup-proof.ts';
import type { Agent, AgentStore, IssuedToken } from './agent-store.ts';
import { recordDecision } from './audit-outbox.ts';
import type { HandshakeProgress, StatusPoll } from './handshake-pickup.ts';
import { collectToken, progress } from './handshake-pickup.ts';

export type { Handshake } from '../generated/prisma/client.ts';
export type { HandshakeProgress, StatusPoll } from './handshake-pickup.ts';

/** A handshake with what its status depends on: the state of the agent made on approval. */
export type HandshakeRecord = Handshake & { agent: Pick<Agent, 'status' | 'expiresAt' | 'scopes'> | null };

export interface NewHandshake {
  agentRef: string;
  requestedScopes: readonly HandshakeScope[];
  message: string;
  /** The caller's address as the gateway saw it (only its hash is stored). */
  clientAddress: string;
  /** BASE64URL(SHA-256(verifier)) (S256): the agent collects its token itself; absent: the owner shares it. */
  codeChallenge?: string | undefined;
}

export interface CreatedHandshake {
  handshake: Handshake;
  /** Where an owner claims it; the only place the claim code appears. */
  claimUrl: string;
}

export interface Approval {
  /** The scopes granted: the requested ones or fewer; absent: all requested. */
  scopes?: readonly string[] | undefined;
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
  /** When the agent and its token stop working; absent: 90 days from approval. Must be in the future. */
  expiresAt?: Date | undefined;
}

export interface ApprovedHandshake {
  handshake: Handshake;
  agent: Agent;
  /**
   * The token to share with the agent: shown once, never stored. null for a handshake with a
   * codeChallenge: the agent collects its own token (nothing to share).
   */
  token: IssuedToken | null;
}

export interface HandshakeStoreOptions {
  prisma: PrismaClient;
  agents: AgentStore;
  publicUrl: string;
  limits?: Partial<CreationLimits>;
  now?: () => Date;
  /** Told of every decision (events.auth.handshake.decided). */
  events: Pick<AuthEvents, 'handshakeDecided'>;
}

/** Agent names are at most 100 characters; an agentId may have 128. */
const AGENT_NAME_MAX = 100;

/** Advisory lock classes of creation (pg_advisory_xact_lock(class, key)): one per kind of key. */
const LOCK_CLASS_CLIENT = 7101;

const WITH_AGENT = { agent: { select: { status: true, expiresAt: true, scopes: true } } } as const;

export class HandshakeStore {
  readonly #db: PrismaClient;
  readonly #agents: AgentStore;
  readonly #publicUrl: string;
  readonly #limits: CreationLimits;
  readonly #now: () => Date;
  readonly #events: HandshakeStoreOptions['events'];

  constructor(options: HandshakeStoreOptions) {
    this.#db = options.prisma;
    this.#agents = options.agents;
    this.#publicUrl = options.publicUrl;
    this.#limits = { ...DEFAULT_CREATION_LIMITS, ...options.limits };
    this.#now = options.now ?? (() => new Date());
    this.#events = options.events;
  }

  /** Records a request within the creation limits (else 429 RATE_LIMITED with Retry-After). */
  async create(input: NewHandshake): Promise<CreatedHandshake> {
    const now = this.#now();
    const clientHash = clientAddressHash(input.clientAddress);
    const claim = newClaimCodeWithHash();
    const limits = this.#limits;
    const handshake = await this.#db.$transaction(async (tx) => {
      // Held until commit: a second creation from the same address counts this one (every
      // limit is per address).
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS_CLIENT}::int, hashtext(${clientHash}))`;
      const owners = await tx.account.findMany({ select: { id: true }, take: 2 });
      // The queue it goes to: the only owner's, or (null) the pool of unclaimed requests.
      const accountId = owners.length === 1 ? (owners[0]?.id ?? null) : null;
      const since = (seconds: number) => new Date(now.getTime() - seconds * 1000);
      const newest = async (where: object, take: number) =>
        (
          await tx.handshake.findMany({
            where,
            orderBy: { createdAt: 'desc' },
            take,
            select: { createdAt: true },
          })
        ).map((row) => row.createdAt);
      const fromClientAgent = { clientHash, agentRef: input.agentRef };
      const refusal = creationRefusal(
        {
          fromClientToQueue: await newest(
            { clientHash, accountId, createdAt: { gt: since(HOUR_SECONDS) } },
            limits.perClientPerQueuePerHour,
          ),
          fromClientAgent: await newest(
            { ...fromClientAgent, createdAt: { gt: since(HOUR_SECONDS) } },
            limits.perClientAgentPerHour,
          ),
          pendingFromClientAgent: await newest(
            {
              ...fromClientAgent,
              status: 'pending',
              createdAt: { gt: since(limits.pendingCountsForSeconds) },
            },
            limits.pendingPerClientAgent,
          ),
        },
        input.agentRef,
        now,
        limits,
      );
      if (refusal) throw refusal;
      return tx.handshake.create({
        data: {
          id: newId('hs'),
          accountId,
          agentRef: input.agentRef,
          requestedScopes: [...input.requestedScopes],
          message: input.message,
          claimCodeHash: claim.hash,
          clientHash,
          codeChallenge: input.codeChallenge ?? null,
          createdAt: now,
        },
      });
    });
    return { handshake, claimUrl: claimUrl(this.#publicUrl, claim.code) };
  }

  /**
   * The status the agent polls; an id that is not a handshake's is NOT_FOUND. With a verifier:
   * one that does not match the handshake's challenge (or a handshake without one) is
   * HANDSHAKE_PROOF_MISMATCH; the matching one collects the token of an approved handshake, once.
   */
  async status(id: string, poll: StatusPoll): Promise<HandshakeProgress> {
    const record = await this.#find(id);
    const status = effectiveStatus(record, this.#now());
    if (poll.verifier === undefined) return progress(record, status);
    if (record.codeChallenge === null || !proofMatches(record.codeChallenge, poll.verifier))
      throw proofMismatch(id);
    if (status !== 'approved' || record.tokenCollectedAt !== null) return progress(record, status);
    const collected = await collectToken(this.#db, this.#agents, record, poll.requestId, this.#now());
    return collected ?? progress(await this.#find(id), status);
  }

  async #find(id: string): Promise<HandshakeRecord> {
    const record = isHandshakeId(id)
      ? await this.#db.handshake.findUnique({ where: { id }, include: WITH_AGENT })
      : null;
    if (record === null)
      throw new AppError('NOT_FOUND', `No handshake ${isHandshakeId(id) ? id : 'with this id'}.`, {
        hint: 'Use the handshakeId that POST /api/v1/handshakes returned.',
      });
    return record;
  }

  /** The owner's queue, oldest first. */
  pending(accountId: string): Promise<HandshakeRecord[]> {
    return this.#db.handshake.findMany({
      where: { accountId, status: 'pending' },
      orderBy: { createdAt: 'asc' },
      include: WITH_AGENT,
    });
  }

  /** The owner's decided handshakes, most recent decision first. */
  decided(accountId: string, take = 50): Promise<HandshakeRecord[]> {
    return this.#db.handshake.findMany({
      where: { accountId, status: { not: 'pending' } },
      orderBy: { decidedAt: 'desc' },
      take,
      include: WITH_AGENT,
    });
  }

  /** One of the owner's handshakes; anyone else's, unassigned or unknown: NOT_FOUND. */
  async get(accountId: string, id: string): Promise<HandshakeRecord> {
    const record = isHandshakeId(id)
      ? await this.#db.handshake.findFirst({ where: { id, accountId }, include: WITH_AGENT })
      : null;
    if (record === null) throw notFound(id);
    return record;
  }

  /**
   * Makes a pending handshake the owner's by its claim code. A code of a handshake already this
   * owner's is accepted (the single owner opens the same link); one of another owner's, of a
   * decided handshake or no one's at all fails alike.
   */
  async claim(accountId: string, code: string, by: DecidedBy): Promise<Handshake> {
    const hash = claimCodeHash(code);
    const handshake =
      hash === null
        ? null
        : await this.#db.$transaction(async (tx) => {
            const claimed = await tx.handshake.updateMany({
              where: { claimCodeHash: hash, status: 'pending', OR: [{ accountId: null }, { accountId }] },
              data: { accountId },
            });
            if (claimed.count !== 1) return null;
            const found = await tx.handshake.findUnique({ where: { claimCodeHash: hash } });
            if (found !== null)
              await recordDecision(tx, {
                by,
                accountId,
                action: 'handshake.claim',
                target: found.id,
                detail: { agentRef: found.agentRef },
              });
            return found;
          });
    if (handshake === null)
      throw new AppError('NOT_FOUND', 'No pending handshake waits for this code.', {
        hint: 'Copy the whole link the agent showed you; a code works only until the request is decided.',
      });
    return handshake;
  }

  /**
   * Approves a pending handshake of the owner's: a new `handshake` agent with the granted scopes
   * (a non-empty subset of those requested) and limits, and its first token. Nothing is left
   * behind when a check fails: the agent is made inside the transaction that decides.
   */
  async approve(
    accountId: string,
    id: string,
    approval: Approval,
    by: DecidedBy,
  ): Promise<ApprovedHandshake> {
    const record = await this.get(accountId, id);
    assertPending(record);
    const scopes = grantedScopes(record.requestedScopes, approval.scopes);
    const now = this.#now();
    // Set inside the transaction's callback (a plain `let` would read as never-assigned here).
    const made: { agent?: Agent } = {};
    try {
      const decided = await this.#db.$transaction(
        async (tx) => {
          // Locks the row: a concurrent approval waits here, then finds it decided.
          const taken = await tx.handshake.updateMany({
            where: { id, accountId, status: 'pending' },
            data: { status: 'approved', decidedAt: now },
          });
          if (taken.count === 0) assertPending({ ...record, status: 'approved' });
          const agent = await this.#agents.createAgent({
            accountId,
            kind: 'handshake',
            name: record.agentRef.slice(0, AGENT_NAME_MAX),
            scopes,
            dailyLimit: approval.dailyLimit,
            monthlyLimit: approval.monthlyLimit,
            expiresAt: approval.expiresAt ?? defaultHandshakeExpiry(now),
          });
          made.agent = agent;
          // With a proof the agent collects its own token (status); otherwise the owner shares this one.
          const token = record.codeChallenge === null ? await this.#agents.issueToken(agent) : null;
          const handshake = await tx.handshake.update({ where: { id }, data: { agentId: agent.id } });
          await recordDecision(tx, {
            by,
            accountId,
            action: 'handshake.approve',
            target: id,
            agentId: agent.id,
            clientId: agent.clientId,
            detail: {
              agentRef: record.agentRef,
              tokenDelivery: record.codeChallenge === null ? 'owner' : 'pickup',
              ...grantDetail(agent),
            },
          });
          return { handshake, agent, token };
        },
        { timeout: 15_000 },
      );
      await this.#events.handshakeDecided({
        accountId,
        handshakeId: id,
        status: 'approved',
        at: now.toISOString(),
      });
      return decided;
    } catch (error) {
      // The decision was rolled back: the agent made for it must not keep a working token.
      if (made.agent !== undefined) await this.#agents.retire(accountId, made.agent.id);
      throw error;
    }
  }

  /** Denies a pending handshake of the owner's. */
  async deny(accountId: string, id: string, by: DecidedBy): Promise<Handshake> {
    const record = await this.get(accountId, id);
    assertPending(record);
    const now = this.#now();
    await this.#db.$transaction(async (tx) => {
      const taken = await tx.handshake.updateMany({
        where: { id, accountId, status: 'pending' },
        data: { status: 'denied', decidedAt: now },
      });
      if (taken.count === 0) assertPending({ ...record, status: 'approved' });
      await recordDecision(tx, {
        by,
        accountId,
        action: 'handshake.deny',
        target: id,
        detail: { agentRef: record.agentRef },
      });
    });
    await this.#events.handshakeDecided({
      accountId,
      handshakeId: id,
      status: 'denied',
      at: now.toISOString(),
    });
    return { ...record, status: 'denied', decidedAt: now };
  }
}
