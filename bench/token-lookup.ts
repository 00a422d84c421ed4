/**
 * A token check costs the same with 10 and with 10,000 tokens stored: the auth service finds an
 * access token by one primary-key lookup of HMAC-SHA-256(TOKEN_HASH_KEY, token), never by a scan
 * of password-style hashes. Measured here, standalone:
 *
 *   pnpm exec node bench/token-lookup.ts      (BENCH_DURATION s, BENCH_CONNECTIONS, TOKENS)
 *
 * A fresh PostgreSQL with the auth migrations; the auth service as its own process (as in
 * production, its in-memory bus); tokens minted in this process through the same core on the
 * same data (AgentStore.issueToken, dashboard agents). Then, with 10 tokens stored and again with
 * TOKENS (default 10,000): autocannon POSTs /oauth/introspect straight to the auth service with
 * the resource server's credentials (no gateway, so no introspection cache), each request asking
 * about a token drawn at random from all those stored, every answer checked to be active; the
 * lookup statement alone, timed serially from here; and its plan (EXPLAIN ANALYZE).
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { applyMigrations, createLogger } from '../packages/kit/src/mod.ts';
import { freePort, startTestPostgres } from '../packages/kit/src/testing/mod.ts';
import { startReadyProcess } from '../packages/testkit/src/mod.ts';
import type { AuthStore } from '../services/auth/src/mod.ts';
import { authDatabase, byOperator, loadAuthConfig, openAuthStore } from '../services/auth/src/mod.ts';
import { openAuthDatabase } from '../services/auth/src/store/auth-database.ts';
import { recordKey } from '../services/auth/src/store/record-key.ts';
import { descendantPids, measure } from './measure.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const manyTokens = Number(process.env.TOKENS ?? 10_000);
const AUTH_MAIN = fileURLToPath(new URL('../services/auth/src/main.ts', import.meta.url));
const PUBLIC_URL = 'https://api.bench.test';
const RESOURCE_SERVER = { id: 'bench-rs', secret: randomBytes(32).toString('base64url') };
/** Tokens minted at once (each costs a few statements). */
const MINT_CONCURRENCY = 32;
const TOKENS_PER_AGENT = 100;

const secret = () => randomBytes(32).toString('base64url');
const logger = createLogger({ service: 'token-lookup-bench', level: 'warn' });

await using postgres = await startTestPostgres();
await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
const env = {
  DATABASE_URL: postgres.url,
  PUBLIC_URL,
  PORT: String(await freePort()),
  OPS_PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  COOKIE_KEYS: secret(),
  KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  TOKEN_HASH_KEY: secret(),
  TOKEN_TAG_KEYS: secret(),
  INTROSPECTION_CLIENTS: `${RESOURCE_SERVER.id}:${RESOURCE_SERVER.secret}`,
  // Required; unused here: the bench only introspects, which resource servers do directly.
  GATEWAY_SECRET: secret(),
};
await using auth = await startReadyProcess({ args: [AUTH_MAIN], env });
const config = loadAuthConfig(env);
await using store = await openAuthStore({ config, publicUrl: PUBLIC_URL, logger });
// The bench's own client for the statements it times (the stores keep theirs to themselves).
const db = openAuthDatabase({ databaseUrl: postgres.url, logger });
const owner = await store.accounts.create(
  {
    email: 'bench@example.test',
    password: 'correct horse battery staple',
  },
  byOperator(),
);
const tokens: string[] = [];

/** Mints until `total` tokens are stored: new dashboard agents of TOKENS_PER_AGENT tokens each. */
async function mintUntil(core: AuthStore, total: number): Promise<number> {
  const started = performance.now();
  const wanted = total - tokens.length;
  let agent = newAgent(core);
  let ofAgent = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: MINT_CONCURRENCY }, async () => {
      while (next < wanted) {
        next += 1;
        if (ofAgent === TOKENS_PER_AGENT) {
          ofAgent = 0;
          agent = newAgent(core);
        }
        ofAgent += 1;
        tokens.push((await core.agents.issueToken(await agent)).value);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

let agents = 0;
function newAgent(core: AuthStore) {
  agents += 1;
  return core.agents.createAgent({
    accountId: owner.id,
    kind: 'dashboard',
    name: `Bench ${agents}`,
    scopes: ['read'],
  });
}

const basic = Buffer.from(`${RESOURCE_SERVER.id}:${RESOURCE_SERVER.secret}`).toString('base64');
/** Each connection cycles through its own 200 requests, each about a token drawn from all stored. */
const introspections = (): autocannon.Request[] =>
  Array.from({ length: 200 }, () => ({
    method: 'POST',
    path: '/oauth/introspect',
    body: new URLSearchParams({
      token: tokens[randomInt(tokens.length)] ?? '',
      token_type_hint: 'access_token',
    }).toString(),
  }));

async function measureIntrospection() {
  const load = {
    url: auth.url,
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    connections,
    connectionRequests: introspections,
    verifyBody: (body: string) => body.includes('"active":true'),
  };
  await measure({ ...load, durationSeconds: Math.min(2, durationSeconds), pids: [] });
  return measure({
    ...load,
    durationSeconds,
    pids: [auth.pid, postgres.pid, ...(await descendantPids(postgres.pid))],
  });
}

const key = recordKey(config.tokenHashKey);
/** oidc-provider's AccessToken lookup as the adapter runs it (services/auth/src/store/oidc-adapter.ts). */
const lookupSql = (hashedId: string) => `
  SELECT t.payload, t.consumed_at, t.grant_id, g.payload AS grant_payload
    FROM "auth"."oidc_payloads" t
    LEFT JOIN "auth"."oidc_payloads" g ON g.model = 'Grant' AND g.grant_id = t.grant_id
         AND (g.expires_at IS NULL OR g.expires_at > now())
   WHERE t.model = 'AccessToken' AND t.id = '${hashedId}'
     AND (t.expires_at IS NULL OR t.expires_at > now())`;

/** The lookup statement alone, serially: mean microseconds over 2,000 random stored tokens. */
async function lookupMicros(): Promise<number> {
  await db.$executeRawUnsafe('ANALYZE "auth"."oidc_payloads"');
  const ids = Array.from({ length: 2_000 }, () => key(tokens[randomInt(tokens.length)] ?? ''));
  const started = performance.now();
  for (const id of ids) {
    const rows = await db.$queryRawUnsafe<unknown[]>(lookupSql(id));
    if (rows.length !== 1) throw new Error('a stored token was not found');
  }
  return ((performance.now() - started) * 1000) / ids.length;
}

/** The statement's own execution time in the server (EXPLAIN ANALYZE): mean microseconds over 200 tokens. */
async function executionMicros(): Promise<number> {
  let total = 0;
  for (let i = 0; i < 200; i += 1) {
    const rows = await db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN (ANALYZE, COSTS OFF) ${lookupSql(key(tokens[randomInt(tokens.length)] ?? ''))}`,
    );
    const line = rows.map((row) => row['QUERY PLAN']).find((text) => text.startsWith('Execution Time'));
    total += Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? Number.NaN) * 1000;
  }
  return total / 200;
}

async function plan(): Promise<string> {
  const rows = await db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${lookupSql(key(tokens[randomInt(tokens.length)] ?? ''))}`,
  );
  return rows.map((row) => `    ${row['QUERY PLAN']}`).join('\n');
}

async function stored(): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "auth"."oidc_payloads" WHERE model = 'AccessToken'`;
  return row?.n ?? 0;
}

const results: string[] = [];
for (const total of [10, manyTokens]) {
  const mintSeconds = await mintUntil(store, total);
  const count = await stored();
  const micros = await lookupMicros();
  const execution = await executionMicros();
  const r = await measureIntrospection();
  results.push(
    `| ${count} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} / ${r.non2xx} | ${micros.toFixed(0)} | ${execution.toFixed(0)} |`,
  );
  process.stdout.write(
    `${count} access tokens stored (minted in ${mintSeconds.toFixed(1)} s, ${agents} agents); lookup plan:\n${await plan()}\n\n`,
  );
}

process.stdout.write(
  `POST /oauth/introspect straight to the auth service, ${connections} connections, ${durationSeconds} s after a 2 s warm-up; ` +
    'each request about a random stored token, every answer active. Lookup round trip: the statement alone from here, ' +
    'serially, mean of 2,000; in the server: its execution time by EXPLAIN ANALYZE, mean of 200.\n\n' +
    '| access tokens stored | requests/s | p50 ms | p99 ms | errors / non-2xx | lookup round trip µs | lookup in the server µs |\n' +
    '|---:|---:|---:|---:|---:|---:|---:|\n' +
    `${results.join('\n')}\n`,
);

await db.$disconnect();
