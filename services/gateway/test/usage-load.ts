/**
 * What counting every agent's requests costs the gateway: autocannon against the gateway as its
 * own process (src/main.ts) on a real PostgreSQL with its migrations, the token answered by the
 * fake auth service (introspection is cached, so it is off the hot path). Measures the discovery
 * index (no token, not counted) and the calling token's capabilities (counted), for a token
 * without limits, one with limits far above the load, and one over its limit (refused).
 *
 *   pnpm exec node services/gateway/test/usage-load.ts   (LOAD_DURATION s, LOAD_CONNECTIONS)
 *
 * LOAD_GATEWAY_MAIN runs another gateway entry point instead, e.g. an export of an earlier commit
 * (`git archive <commit> services/gateway | tar -x -C /tmp/before`, linking its node_modules and
 * src/generated), to compare before and after on the same machine in the same minute.
 */
import { applyMigrations } from '@pag/kit';
import { FakeAuthServer, startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import type { LoadScenario } from './load-gateway.ts';
import { LOAD_MAIN, LOAD_PUBLIC_URL, measureScenarios, startLoadGateway } from './load-gateway.ts';

const durationSeconds = Number(process.env.LOAD_DURATION ?? 10);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const PUBLIC_URL = LOAD_PUBLIC_URL;

await using postgres = await startTestPostgres();
await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
await using auth = await FakeAuthServer.start();
const exp = Math.floor(Date.now() / 1000) + 3600;
const claims = (clientId: string) => ({
  active: true,
  scope: 'read',
  client_id: clientId,
  sub: '00000000-0000-4000-8000-000000000001',
  account_id: '00000000-0000-4000-8000-000000000001',
  aud: `${PUBLIC_URL}/api/v1`,
  exp,
  iat: exp - 3600,
  token_type: 'Bearer',
  plan: 'free',
});
auth.tokens.set('unlimited-token', { ...claims('agt_unlimited'), token_kind: 'dashboard' });
auth.tokens.set('limited-token', {
  ...claims('agt_limited'),
  token_kind: 'dashboard',
  agent_id: 'ag_limited',
  agent_name: 'Load test agent',
  limit_daily: 100_000_000,
  limit_monthly: 100_000_000,
});

auth.tokens.set('exhausted-token', { ...claims('agt_exhausted'), token_kind: 'dashboard', limit_daily: 0 });

const loadGateway = await startLoadGateway({ databaseUrl: postgres.url, authUrl: auth.url });
await using gateway = loadGateway.process;
const { base } = loadGateway;

const scenarios: LoadScenario[] = [
  ['GET /api/v1/ (discovery, no token)', '/api/v1/', {}],
  [
    'GET /api/v1/tokens/me/capabilities (no limits)',
    '/api/v1/tokens/me/capabilities',
    { authorization: 'Bearer unlimited-token' },
  ],
  [
    'GET /api/v1/tokens/me/capabilities (daily and monthly limits)',
    '/api/v1/tokens/me/capabilities',
    { authorization: 'Bearer limited-token' },
  ],
  [
    'GET /api/v1/tokens/me/capabilities (over its daily limit: every answer 429)',
    '/api/v1/tokens/me/capabilities',
    { authorization: 'Bearer exhausted-token' },
  ],
];
const rows = (
  await measureScenarios(base, scenarios, { connections, durationSeconds, pids: [gateway.pid] })
).map(
  ({ name, result: r }) =>
    `| ${name} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} / ${r.non2xx} |`,
);
process.stdout.write(
  `${LOAD_MAIN}\n${connections} connections, ${durationSeconds} s each after a 2 s warm-up\n\n` +
    '| scenario | requests/s | p50 ms | p99 ms | errors / non-2xx |\n|---|---:|---:|---:|---:|\n' +
    `${rows.join('\n')}\n`,
);
