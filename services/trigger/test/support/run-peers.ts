/**
 * The services a trigger run asks, as small responders on the test's broker (their real handlers
 * are the auth service's, the gateway's and the brain's; the service's end-to-end test runs them):
 * each checks the request against its contract schema and keeps it with its request id.
 * - auth.agents.grant answers the grant set for the agent (active, pro, chat + github read unless set);
 * - gateway.usage.charge answers `charge` (served unless set);
 * - brain.prompt.run answers an offline-like result, or throws `brainFailure`.
 */
import type { AgentGrant, AnyEndpoint, UsageCharged } from '@pag/contracts';
import {
  type AppError,
  AuthEndpoints,
  BrainServiceEndpoints,
  GatewayEndpoints,
  MessageHeaders,
} from '@pag/contracts';
import type { Subscription } from '@pag/kit';
import type { TestBroker } from '@pag/kit/testing';

export interface Asked {
  subject: string;
  requestId: string | undefined;
  data: Record<string, unknown>;
}

export interface RunPeers {
  readonly asked: Asked[];
  /** The grant auth answers for `agentId`; fields not given are an active pro agent's. */
  grant(agentId: string, fields?: Partial<AgentGrant>): void;
  charge: UsageCharged;
  brainFailure: AppError | null;
  /** The brain stops answering (its subscription closes). */
  stopBrain(): Promise<void>;
  /** Forgets what was asked and set. */
  reset(): void;
}

const SERVED: UsageCharged = { served: true, retryAfterSeconds: null, message: null };

export async function startRunPeers(broker: TestBroker): Promise<RunPeers> {
  const asked: Asked[] = [];
  const grants = new Map<string, AgentGrant>();
  const respond = async (
    name: string,
    endpoint: AnyEndpoint,
    answer: (data: Record<string, unknown>) => unknown,
  ) => {
    const bus = await broker.connect(name);
    return bus.handle(endpoint.subject, (msg) => {
      const data = endpoint.request.parse(msg.data) as Record<string, unknown>;
      asked.push({ subject: endpoint.subject, requestId: msg.headers[MessageHeaders.requestId], data });
      return answer(data);
    });
  };
  let brain: Subscription | undefined;
  const peers: RunPeers = {
    asked,
    grant(agentId, fields = {}) {
      grants.set(agentId, {
        agentId,
        status: 'active',
        clientId: `client_${agentId}`,
        scopes: ['chat', 'services:github:read'],
        limits: { daily: 100, monthly: 1000 },
        plan: 'pro',
        ...fields,
      });
    },
    charge: SERVED,
    brainFailure: null,
    stopBrain: async () => brain?.close(),
    reset() {
      asked.length = 0;
      grants.clear();
      peers.charge = SERVED;
      peers.brainFailure = null;
    },
  };
  await respond('auth', AuthEndpoints.agentGrant, (data) => {
    const grant = grants.get(data.agentId as string);
    if (grant === undefined) throw new Error(`no grant for ${String(data.agentId)}`);
    return grant;
  });
  await respond('gateway', GatewayEndpoints.usageCharge, () => peers.charge);
  brain = await respond('brain', BrainServiceEndpoints.promptRun, (data) => {
    if (peers.brainFailure !== null) throw peers.brainFailure;
    return {
      output: `Done: ${String(data.prompt)}`,
      model: 'offline',
      provider: 'offline',
      memoryId: data.saveOutputToMemory === true ? 'mem_saved' : null,
      serviceCalls: [],
    };
  });
  return peers;
}
