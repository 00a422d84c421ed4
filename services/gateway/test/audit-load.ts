/**
 * What the audit event of every request costs: autocannon against the gateway as its own process
 * (src/main.ts) on a real nats-server with JetStream (every answer waits for the AUDIT stream's
 * ack) and a real PostgreSQL; the token is answered by the fake auth service (introspection is
 * cached, so it is off the hot path). Measures the discovery index (no token) and the calling
 * token's capabilities (authenticated and counted), at LOAD_CONNECTIONS connections.
 *
 *   pnpm exec node services/gateway/test/audit-load.ts   (LOAD_DURATION s, LOAD_CONNECTIONS)
 *
 * LOAD_GATEWAY_MAIN runs another gateway entry point, e.g. an export of an earlier commit
 * (`git archive <commit> services/gateway | tar -x -C /tmp/before`, linking its node_modules and
 * src/generated), for a before/after comparison on the same machine in the same minute.
 * LOAD_BUS=memory runs the gateway without NATS_URL (the embedded in-memory bus).
 */
import { applyMigrations } from '@pag/kit';
import { FakeAuthServer, startNatsServer, startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import type { LoadScenario } from './load-gateway.ts';
import { LOAD_MAIN, LOAD_PUBLIC_URL, measureScenarios, startLoadGateway } from './load-gateway.ts';

const durationSeconds = Number(process.env.LOAD_DURATION ?? 10);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const useNats = process.env.LOAD_BUS !== 'memory';
const PUBLIC_URL = LOAD_PUBLIC_URL;

await using postgres = await startTestPostgres();
await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
await using nats = useNats ? await startNatsServer() : undefined;
await using auth = await FakeAuthServer.start();
const exp = Math.floor(Date.now() / 1000) + 3600;
auth.tokens.set('load-token', {
  active: true,
  scope: 'read',
  client_id: 'agt_load',
  sub: '00000000-0000-4000-8000-000000000001',
  account_id: '00000000-0000-4000-8000-000000000001',
  aud: `${PUBLIC_URL}/api/v1`,
  exp,
  iat: exp - 3600,
  token_type: 'Bearer',
  plan: 'free',
  token_kind: 'dashboard',
});

const loadGateway = await startLoadGateway({
  databaseUrl: postgres.url,
  authUrl: auth.url,
  natsUrl: nats?.url,
});
await using gateway = loadGateway.process;
const { base } = loadGateway;
const pids = nats ? [gateway.pid, nats.pid] : [gateway.pid];

const scenarios: LoadScenario[] = [
  ['GET /api/v1/ (discovery, no token)', '/api/v1/', {}],
  [
    'GET /api/v1/tokens/me/capabilities (authenticated)',
    '/api/v1/tokens/me/capabilities',
    { authorization: 'Bearer load-token' },
  ],
];
const rows = (await measureScenarios(base, scenarios, { connections, durationSeconds, pids })).map(
  ({ name, result: r }) =>
    `| ${name} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} / ${r.non2xx} | ${Math.round(r.serverCpuPercent)} | ${Math.round(r.otherCpuPercent)} |`,
);
process.stdout.write(
  `${LOAD_MAIN}\nbus: ${useNats ? 'nats-server (JetStream)' : 'in-memory'}; ${connections} connections, ${durationSeconds} s each after a 2 s warm-up\n\n` +
    '| scenario | requests/s | p50 ms | p99 ms | errors / non-2xx | gateway+nats CPU % of a core | other CPU % |\n|---|---:|---:|---:|---:|---:|---:|\n' +
    `${rows.join('\n')}\n`,
);
