/**
 * Per-agent limits across replicas: two gateway processes (services/gateway/src/main.ts) on one
 * nats-server and one PostgreSQL, with the auth service in this process. A dashboard agent with a
 * daily limit of 50 sends 200 requests at once, spread over both: exactly 50 are served, 150 are
 * 429 USAGE_LIMIT_EXCEEDED with Retry-After and the RateLimit fields; once one replica stops
 * gracefully (giving its reservations back), the other reports 50 used today on the bus.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { UsageReport } from '@pag/contracts';
import { ErrorBody, GatewaySubjects, TokenCapabilities } from '@pag/contracts';
import { createLogger, NatsBus } from '../packages/kit/src/mod.ts';
import type { NatsServer } from '../packages/kit/src/testing/mod.ts';
import { freePort } from '../packages/kit/src/testing/mod.ts';
import type { ReadyProcess } from '../packages/testkit/src/mod.ts';
import { startReadyProcess } from '../packages/testkit/src/mod.ts';
import type { RunningAuth } from '../services/auth/src/mod.ts';
import type { AuthOnNats } from './support/auth-on-nats.ts';
import { gatewayEnv, startAuthOnNats } from './support/auth-on-nats.ts';

const PUBLIC_URL = 'https://api.example.test';
const CAPABILITIES = '/api/v1/tokens/me/capabilities';
const GATEWAY_MAIN = fileURLToPath(new URL('../services/gateway/src/main.ts', import.meta.url));
const logger = createLogger({ service: 'limits-two-gateways-test', level: 'silent' });

let nats: NatsServer;
let env: AuthOnNats;
let auth: RunningAuth;
let accountId: string;
const gateways: { url: string; process: ReadyProcess }[] = [];

async function startGatewayProcess() {
  // PUBLIC_URL is not where it listens (the ready line prints PUBLIC_URL), so the port is chosen here.
  const port = await freePort();
  const process = await startReadyProcess({
    args: [GATEWAY_MAIN],
    env: {
      ...gatewayEnv(env, PUBLIC_URL),
      PORT: String(port),
      OPS_PORT: '0',
      LOG_LEVEL: 'warn',
      NATS_URL: nats.url,
    },
  });
  return { url: `http://127.0.0.1:${port}`, process };
}

beforeAll(async () => {
  env = await startAuthOnNats({ publicUrl: PUBLIC_URL, logger });
  ({ nats, auth, accountId } = env);
  gateways.push(await startGatewayProcess(), await startGatewayProcess());
}, 60_000);

afterAll(async () => {
  for (const gateway of gateways) await gateway.process.stop();
  await env?.close();
});

describe('a daily limit of 50 across two gateway processes', () => {
  test('200 concurrent requests spread over both: exactly 50 served, 150 refused with the headers', async () => {
    const { agents } = auth.core;
    const agent = await agents.createAgent({
      accountId,
      kind: 'dashboard',
      name: 'Limited',
      scopes: ['read'],
      dailyLimit: 50,
    });
    const token = (await agents.issueToken(agent)).value;
    // Retry-After counts from when a gateway answered; the bound is taken before any request is
    // sent, so it is the largest value a correct answer can carry (taken after the answers
    // arrive, it was smaller than a slow machine's correct Retry-After).
    const untilMidnight = Math.ceil((nextUtcMidnight() - Date.now()) / 1000);
    const responses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await fetch(`${gateways[i % 2]?.url}${CAPABILITIES}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return {
          status: response.status,
          headers: response.headers,
          body: (await response.json()) as unknown,
        };
      }),
    );
    const served = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(served).toHaveLength(50);
    expect(refused).toHaveLength(150);

    for (const response of served) {
      expect(response.headers.get('ratelimit-policy')).toBe('"daily";q=50;w=86400');
      expect(response.headers.get('ratelimit')).toMatch(/^"daily";r=\d+;t=\d+$/);
      const daily = TokenCapabilities.parse(response.body).limits.daily;
      expect(daily?.limit).toBe(50);
      expect(daily?.used).toBeGreaterThanOrEqual(1);
      expect(daily?.used).toBeLessThanOrEqual(50);
    }
    for (const response of refused) {
      expect(ErrorBody.parse(response.body).error.code).toBe('USAGE_LIMIT_EXCEEDED');
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(untilMidnight + 1);
      expect(response.headers.get('ratelimit-policy')).toBe('"daily";q=50;w=86400');
      // The window that was hit, nothing left, and t the same moment as Retry-After.
      expect(response.headers.get('ratelimit')).toBe(`"daily";r=0;t=${retryAfter}`);
    }

    // The first replica stops gracefully: it settles what it served and gives back what it holds.
    const [first, second] = gateways;
    await first?.process.stop();
    gateways.shift();
    const bus = await NatsBus.connect({ url: nats.url, name: 'usage-reader', logger });
    try {
      const report = await bus.request<UsageReport>(
        GatewaySubjects.usageGet,
        { accountId, clientIds: [agent.clientId] },
        { timeoutMs: 5_000 },
      );
      expect(report.agents[0]).toMatchObject({ clientId: agent.clientId, today: 50, thisMonth: 50 });
    } finally {
      await bus.close();
    }
    // Still refused on the replica that is left.
    const after = await fetch(`${second?.url}${CAPABILITIES}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await after.body?.cancel();
    expect(after.status).toBe(429);
  }, 60_000);
});

function nextUtcMidnight(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}
