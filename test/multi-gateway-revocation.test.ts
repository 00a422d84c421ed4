/**
 * Two gateway replicas behind one public origin, on one nats-server and one PostgreSQL, with the
 * auth service: a dashboard agent's token works on both; once the owner revokes the agent, both
 * reject it within one second, although each holds the token's answer in a cache that would
 * otherwise keep it for a minute (only the revocation event on the bus can explain the 401). An
 * agent's daily limit holds across both replicas, which count in the same rows.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { UsageReport } from '@pag/contracts';
import { ErrorBody, GatewaySubjects, TokenCapabilities } from '@pag/contracts';
import { createLogger } from '../packages/kit/src/mod.ts';
import { eventually } from '../packages/kit/src/testing/mod.ts';
import type { RunningAuth } from '../services/auth/src/mod.ts';
import { byOperator } from '../services/auth/src/mod.ts';
import type { AuthOnNats, GatewayReplica } from './support/auth-on-nats.ts';
import { startAuthOnNats, startGatewayReplica } from './support/auth-on-nats.ts';

/** The one public origin both replicas serve (the issuer and the tokens' audience). */
const PUBLIC_URL = 'https://api.example.test';
const CAPABILITIES = '/api/v1/tokens/me/capabilities';
const logger = createLogger({ service: 'multi-gateway-test', level: 'silent' });

let env: AuthOnNats;
let auth: RunningAuth;
let accountId: string;
let replicas: GatewayReplica[] = [];

function startReplica(name: string): Promise<GatewayReplica> {
  return startGatewayReplica(env, {
    name,
    publicUrl: PUBLIC_URL,
    logger,
    // Far longer than the test: a cached answer can only go away through the revocation event.
    extraEnv: { INTROSPECTION_CACHE_MS: '60000' },
  });
}

beforeAll(async () => {
  env = await startAuthOnNats({ publicUrl: PUBLIC_URL, logger });
  ({ auth, accountId } = env);
  replicas = [await startReplica('gateway-a'), await startReplica('gateway-b')];
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await env?.close();
});

async function dashboardToken(name: string, limits: { dailyLimit?: number } = {}) {
  const { agents } = auth.core;
  const agent = await agents.createAgent({ accountId, kind: 'dashboard', name, scopes: ['read'], ...limits });
  return { agent, token: (await agents.issueToken(agent)).value };
}

function call(replica: GatewayReplica, token: string) {
  return fetch(`${replica.url}${CAPABILITIES}`, { headers: { authorization: `Bearer ${token}` } });
}

/** Calls until the replica answers 401; resolves the milliseconds it took, or fails after `withinMs`. */
function untilRejected(
  replica: GatewayReplica,
  token: string,
  since: number,
  withinMs: number,
): Promise<number> {
  return eventually(
    async () => {
      const response = await call(replica, token);
      await response.body?.cancel();
      const elapsed = performance.now() - since;
      if (response.status !== 401)
        throw new Error(`${replica.url} still answers ${response.status} after ${elapsed} ms`);
      return elapsed;
    },
    { what: `${replica.url} rejects the revoked token`, timeoutMs: withinMs },
  );
}

describe('two gateway replicas on one bus', () => {
  test('a revoked dashboard token is rejected by both within one second', async () => {
    const { agent, token } = await dashboardToken('Revoked soon');
    for (const replica of replicas) {
      const first = await call(replica, token);
      expect(first.status).toBe(200);
      expect(TokenCapabilities.parse(await first.json()).agent).toEqual({
        id: agent.id,
        name: 'Revoked soon',
      });
      // The second call is answered from the replica's cache.
      expect((await call(replica, token)).status).toBe(200);
    }

    const revokedAt = performance.now();
    await auth.core.agents.revoke(accountId, agent.id, byOperator());
    const elapsed = await Promise.all(
      replicas.map((replica) => untilRejected(replica, token, revokedAt, 1_000)),
    );
    for (const ms of elapsed) expect(ms).toBeLessThan(1_000);
  });

  test("an agent's daily limit holds across both replicas, and its usage reaches the dashboard's query", async () => {
    const [a, b] = replicas as [GatewayReplica, GatewayReplica];
    const { agent, token } = await dashboardToken('Limited', { dailyLimit: 3 });
    expect((await call(a, token)).status).toBe(200);
    expect((await call(b, token)).status).toBe(200);
    const third = await call(a, token);
    expect(third.status).toBe(200);
    const capabilities = TokenCapabilities.parse(await third.json());
    expect(capabilities).toMatchObject({
      agent: { id: agent.id, name: 'Limited' },
      tokenKind: 'dashboard',
      limits: { daily: { limit: 3, used: 3 }, monthly: null },
    });

    const refused = await call(b, token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(ErrorBody.parse(await refused.json()).error).toMatchObject({
      code: 'USAGE_LIMIT_EXCEEDED',
      message: expect.stringContaining('daily limit of 3 requests'),
    });

    const report = await env.authBus.request<UsageReport>(
      GatewaySubjects.usageGet,
      { accountId, clientIds: [agent.clientId] },
      { timeoutMs: 2_000 },
    );
    expect(report.agents).toEqual([
      { clientId: agent.clientId, today: 3, thisMonth: 3, lastUsedAt: expect.any(String) },
    ]);
  });
});
