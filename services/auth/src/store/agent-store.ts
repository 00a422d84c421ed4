/**
 * Agents: whoever holds an owner's tokens (see the Agent model). Every way in ends here: an OAuth
 * client the owner consented to (recordConsent), a dashboard token, an approved handshake or an
 * approved device (createAgent + issueToken).
 *
 * What it enforces:
 * - tenancy: every read and write names the owner account; another owner's agent is "not found";
 * - tokens are oidc-provider's own opaque access tokens (one introspection path), minted through
 *   its models on a grant for the API resource, so the adapter stores them by keyed hash only;
 * - revocation is final and immediate: the agent is marked revoked, every record of its client
 *   for that owner is deleted (tokens, grants, codes), and a TokenRevokedEvent evicts every
 *   introspection cache before revoke() returns;
 * - a token made or revoked by a decision of its own (a dashboard token, `pag token …`) writes its
 *   audit event in the transaction that makes or revokes the agent (store/audit-outbox.ts).
 */
import { AppError, type TokenKind } from '@pag/contracts';
import type Provider from 'oidc-provider';
import type { AdapterFactory } from 'oidc-provider';
import {
  checkLimit,
  checkName,
  checkScopes,
  NAME_MAX,
  NO_EXPIRY_SECONDS,
  newId,
} from '../agents/agent-rules.ts';
import type { DecidedBy } from '../events/audit-decisions.ts';
import { grantDetail } from '../events/audit-decisions.ts';
import type { RevokedAccess } from '../events/auth-events.ts';
import type { Agent, PrismaClient } from '../generated/prisma/client.ts';
import { recordDecision } from './audit-outbox.ts';

export type { Agent } from '../generated/prisma/client.ts';

export interface NewAgent {
  accountId: string;
  kind: Exclude<TokenKind, 'oauth'>;
  name: string;
  scopes: string[];
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
  /** When its tokens stop working by themselves; null or absent: until revoked. */
  expiresAt?: Date | null | undefined;
  /** The OAuth client id; absent: a new `agt_…` id. Devices use their device id. */
  clientId?: string | undefined;
  /** Extra client metadata (e.g. the grant types a device may use). */
  clientMetadata?: Record<string, unknown> | undefined;
}

/** What the owner decided on the consent page for an OAuth client. */
export interface ConsentDecision {
  accountId: string;
  clientId: string;
  name: string;
  scopes: string[];
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
}

export interface IssuedToken {
  /** The bearer token: shown once, never stored. */
  value: string;
  expiresAt: Date;
}

export interface AgentStoreOptions {
  prisma: PrismaClient;
  provider: Provider;
  adapter: AdapterFactory;
  /** `${PUBLIC_URL}/api/v1`: the audience of every token. */
  apiResource: string;
  onRevoked: (revoked: RevokedAccess[]) => Promise<void>;
}

export class AgentStore {
  readonly #db: PrismaClient;
  readonly #provider: Provider;
  readonly #clients: ReturnType<AdapterFactory>;
  readonly #apiResource: string;
  readonly #onRevoked: AgentStoreOptions['onRevoked'];

  constructor(options: AgentStoreOptions) {
    this.#db = options.prisma;
    this.#provider = options.provider;
    this.#clients = options.adapter('Client') as ReturnType<AdapterFactory>;
    this.#apiResource = options.apiResource;
    this.#onRevoked = options.onRevoked;
  }

  /**
   * A new agent with its own OAuth client (no redirect URIs: it never runs the code flow). Checks
   * its name, scopes and limits; the caller issues its first token with issueToken. `by`: the
   * agent is a decision of its own (a dashboard token), whose `token.create` event is written
   * with it; absent, the caller's decision (a handshake's or device's approval) records it.
   */
  async createAgent(input: NewAgent, by?: DecidedBy): Promise<Agent> {
    const name = checkName(input.name);
    const scopes = checkScopes(input.scopes);
    const dailyLimit = checkLimit(input.dailyLimit, 'The daily limit');
    const monthlyLimit = checkLimit(input.monthlyLimit, 'The monthly limit');
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
      throw new AppError('INVALID_REQUEST', 'The expiry must be in the future.');
    const clientId = input.clientId ?? newId('agt');
    await this.#clients.upsert(clientId, {
      client_id: clientId,
      client_name: name,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'none',
      ...input.clientMetadata,
    });
    const data = {
      id: newId('ag'),
      accountId: input.accountId,
      clientId,
      kind: input.kind,
      name,
      scopes,
      dailyLimit,
      monthlyLimit,
      expiresAt: input.expiresAt ?? null,
    };
    if (by === undefined) return this.#db.agent.create({ data });
    return this.#db.$transaction(async (tx) => {
      const agent = await tx.agent.create({ data });
      await recordDecision(tx, {
        by,
        accountId: agent.accountId,
        action: 'token.create',
        target: agent.id,
        agentId: agent.id,
        clientId: agent.clientId,
        detail: { kind: agent.kind, name: agent.name, ...grantDetail(agent) },
      });
      return agent;
    });
  }

  /** A fresh access token for an active agent, with its scopes, for the API. */
  async issueToken(agent: Agent, options: { maxLifetimeSeconds?: number } = {}): Promise<IssuedToken> {
    if (agent.status !== 'active') throw new AppError('CONFLICT', 'This agent was revoked.');
    const untilExpiry =
      agent.expiresAt === null
        ? NO_EXPIRY_SECONDS
        : Math.floor((agent.expiresAt.getTime() - Date.now()) / 1000);
    const lifetime = Math.min(untilExpiry, options.maxLifetimeSeconds ?? NO_EXPIRY_SECONDS);
    if (lifetime <= 0) throw new AppError('CONFLICT', 'This agent has expired.');
    const { Grant, AccessToken, Client, ResourceServer } = this.#provider;
    const client = await Client.find(agent.clientId);
    if (!client) throw new AppError('INTERNAL_ERROR', `The client of agent ${agent.id} is missing.`);
    const scope = agent.scopes.join(' ');
    const grant = new Grant({ accountId: agent.accountId, clientId: agent.clientId });
    // The grant lives as long as the token (BaseToken reads expiresIn; the typings omit it).
    (grant as unknown as { expiresIn: number }).expiresIn = lifetime;
    grant.addResourceScope(this.#apiResource, scope);
    const grantId = await grant.save();
    const token = new AccessToken({
      accountId: agent.accountId,
      client,
      grantId,
      gty: agent.kind,
      scope,
      expiresIn: lifetime,
      extra: { account_id: agent.accountId },
    });
    token.resourceServer = new ResourceServer(this.#apiResource, {
      scope,
      audience: this.#apiResource,
      accessTokenFormat: 'opaque',
      accessTokenTTL: lifetime,
    });
    const issuedAt = Date.now();
    const value = await token.save();
    return { value, expiresAt: new Date(issuedAt + lifetime * 1000) };
  }

  /**
   * The owner consented to an OAuth client: its agent for this owner is created, or updated with
   * the scopes now granted and the limits set on the consent page (null: the account's default;
   * checked as every agent's are), and active again if it had been revoked.
   */
  async recordConsent(input: ConsentDecision, by: DecidedBy): Promise<Agent> {
    const name = input.name.trim().slice(0, NAME_MAX) || input.clientId;
    const dailyLimit = checkLimit(input.dailyLimit, 'The daily limit');
    const monthlyLimit = checkLimit(input.monthlyLimit, 'The monthly limit');
    return this.#db.$transaction(async (tx) => {
      const agent = await tx.agent.upsert({
        where: { accountId_clientId: { accountId: input.accountId, clientId: input.clientId } },
        create: {
          id: newId('ag'),
          accountId: input.accountId,
          clientId: input.clientId,
          kind: 'oauth',
          name,
          scopes: input.scopes,
          dailyLimit,
          monthlyLimit,
        },
        update: { name, scopes: input.scopes, dailyLimit, monthlyLimit, status: 'active', revokedAt: null },
      });
      await recordDecision(tx, {
        by,
        accountId: input.accountId,
        action: 'consent.grant',
        target: input.clientId,
        agentId: agent.id,
        clientId: input.clientId,
        detail: { name, ...grantDetail({ scopes: input.scopes, dailyLimit, monthlyLimit }) },
      });
      return agent;
    });
  }

  /** The owner refused an OAuth client on the consent page: nothing changes but the record of it. */
  recordConsentRefused(input: { accountId: string; clientId: string }, by: DecidedBy): Promise<void> {
    return recordDecision(this.#db, {
      by,
      accountId: input.accountId,
      action: 'consent.deny',
      target: input.clientId,
      clientId: input.clientId,
      decision: 'denied',
      reason: 'ACCESS_DENIED',
    });
  }

  /** The owner's agents, newest first. */
  list(accountId: string): Promise<Agent[]> {
    return this.#db.agent.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } });
  }

  /** One of the owner's agents; another owner's is not found. */
  async get(accountId: string, agentId: string): Promise<Agent> {
    const agent = await this.#db.agent.findFirst({ where: { id: agentId, accountId } });
    if (agent === null)
      throw new AppError('NOT_FOUND', `No agent ${agentId} among yours.`, {
        hint: 'List your agents on /dashboard/tokens or with `pag agent list`.',
      });
    return agent;
  }

  /**
   * One of the owner's agents with the owner's plan, read now (the trigger service's grant before
   * each run); null when the owner has no such agent (another owner's included).
   */
  findWithPlan(accountId: string, agentId: string) {
    return this.#db.agent.findFirst({
      where: { id: agentId, accountId },
      include: { account: { select: { plan: true } } },
    });
  }

  /** An agent by its id alone, whoever's it is: for the device grant, which knows the device's agent. */
  findById(agentId: string): Promise<Agent | null> {
    return this.#db.agent.findUnique({ where: { id: agentId } });
  }

  /** The agent of a token's (account, client), for introspection; null when there is none. */
  findByClient(accountId: string, clientId: string): Promise<Agent | null> {
    return this.#db.agent.findUnique({ where: { accountId_clientId: { accountId, clientId } } });
  }

  /**
   * Revokes one of the owner's agents: it and every token it holds stop working now, on every
   * replica, and a `token.revoke` event names who decided. Revoking a revoked agent changes
   * nothing (and records nothing).
   */
  revoke(accountId: string, agentId: string, by: DecidedBy): Promise<Agent> {
    return this.#revoke(accountId, agentId, by);
  }

  /**
   * Revokes an agent as part of another decision, which records its own event (a device's
   * revocation), or of none (the agent of an approval that was rolled back).
   */
  retire(accountId: string, agentId: string): Promise<Agent> {
    return this.#revoke(accountId, agentId, null);
  }

  async #revoke(accountId: string, agentId: string, by: DecidedBy | null): Promise<Agent> {
    const agent = await this.get(accountId, agentId);
    const revoked =
      agent.status === 'revoked'
        ? agent
        : await this.#db.$transaction(async (tx) => {
            const updated = await tx.agent.update({
              where: { id: agent.id },
              data: { status: 'revoked', revokedAt: new Date() },
            });
            if (by !== null)
              await recordDecision(tx, {
                by,
                accountId,
                action: 'token.revoke',
                target: agent.id,
                agentId: agent.id,
                clientId: agent.clientId,
                detail: { kind: agent.kind, name: agent.name },
              });
            return updated;
          });
    await this.#db.oidcPayload.deleteMany({
      where: { accountId, clientId: agent.clientId, model: { not: 'Client' } },
    });
    // An agent's own client serves no one else; an OAuth client may serve other owners.
    if (agent.kind !== 'oauth') await this.#clients.destroy(agent.clientId);
    await this.#onRevoked([{ accountId, clientId: agent.clientId, tokenSha256: null }]);
    return revoked;
  }
}
