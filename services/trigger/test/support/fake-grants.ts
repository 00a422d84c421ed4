/**
 * A stand-in for the auth service's auth.agents.grant: answers the agents the test registered
 * (their status and scopes now, the owner's plan), `unknown` for any other, and records what it
 * was asked. close() takes it off the bus.
 */
import type { AgentGrant } from '@pag/contracts';
import { AgentGrantQuery, AuthEndpoints, QueueGroups } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';

export class FakeGrants implements AsyncDisposable {
  readonly #agents = new Map<string, AgentGrant>();
  /** Every agent asked for, in order. */
  readonly asked: string[] = [];
  #subscription: Subscription | undefined;

  static async start(bus: Bus): Promise<FakeGrants> {
    const fake = new FakeGrants();
    fake.#subscription = await bus.handle(
      AuthEndpoints.agentGrant.subject,
      async (msg) => fake.#answer(msg.data),
      {
        queue: QueueGroups.auth,
      },
    );
    return fake;
  }

  /** The agent of `accountId` as auth would describe it now (active with `full` unless given). */
  set(accountId: string, agentId: string, grant: Partial<AgentGrant> = {}): void {
    this.#agents.set(`${accountId}/${agentId}`, {
      agentId,
      status: 'active',
      clientId: `client-${agentId}`,
      scopes: ['full'],
      limits: { daily: null, monthly: null },
      plan: 'pro',
      ...grant,
    });
  }

  async close(): Promise<void> {
    await this.#subscription?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #answer(data: unknown): AgentGrant {
    const { accountId, agentId } = AgentGrantQuery.parse(data);
    this.asked.push(agentId);
    return (
      this.#agents.get(`${accountId}/${agentId}`) ?? {
        agentId,
        status: 'unknown',
        clientId: null,
        scopes: [],
        limits: { daily: null, monthly: null },
        plan: null,
      }
    );
  }
}
