/**
 * The proxied call (issue 16, point 6): one small upstream, a bare node:http server answering the
 * same 1 KB JSON to every request (bench/baseline-server.ts, its own process), called directly,
 * through nginx (bench/nginx.ts) and through the embedded stack's gateway and proxy, where it is
 * the owner's connected GitHub (CONNECTOR_BASE_URLS, as the proxy's tests point connectors at a
 * stand-in; the key stored by `pag connection add`) and the agent's dashboard token has the
 * service's read scope. Every answer of each must be the upstream's exact bytes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackProcess } from '@pag/testkit';
import { startReadyProcess, startStackProcess } from '@pag/testkit';
import { createPrismaClient } from '../packages/kit/src/mod.ts';
import { runCli } from '../packages/stack/src/cli/run-cli.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import { pag, startSameBodyServer } from './capabilities-load.ts';

const OWNER = { email: 'bench-proxy@example.test', password: 'correct horse battery staple' };
/** What the agent calls on the stack, and what reaches the upstream (the connector's base URL is the upstream's root). */
export const PROXIED_PATH = '/api/v1/services/github/user';
export const UPSTREAM_PATH = '/user';
const SCOPE = 'services:github:read';

/** 1 KB of JSON (exactly 1,024 bytes), the upstream's answer to everything. */
export function upstreamBody(): Buffer {
  const head = '{"login":"bench","bio":"';
  const tail = '"}';
  return Buffer.from(`${head}${'x'.repeat(1024 - head.length - tail.length)}${tail}`);
}

export interface ProxiedSubject extends AsyncDisposable {
  upstream: { url: string; pid: number };
  stack: StackProcess;
  /** The agent's token, scope services:github:read. */
  token: string;
  body: Buffer;
}

/** The stack's environment that makes GitHub's base URL the upstream's. */
export function proxiedStackEnv(upstreamUrl: string): Record<string, string> {
  return { CONNECTOR_BASE_URLS: JSON.stringify({ github: upstreamUrl }) };
}

/** The owner, GitHub connected with a key (`pag connection add`), and the agent's token. */
export async function connectOwner(stack: StackProcess): Promise<string> {
  const dataDir = stack.dataDir;
  await pag(dataDir, 'owner', 'create', '--email', OWNER.email, '--password', OWNER.password);
  const made = await pag(
    dataDir,
    ...['token', 'create', '--owner', OWNER.email, '--name', 'Bench proxy agent', '--scopes', SCOPE],
  );
  const lines: string[] = [];
  const code = await runCli(
    ['connection', 'add', '--owner', OWNER.email, '--service', 'github', '--label', 'bench'],
    { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      input: async () => 'ghp_benchUpstreamKey0123456789\n',
    },
  );
  if (code !== 0) throw new Error(`pag connection add failed (${code}):\n${lines.join('\n')}`);
  return made.at(-1) ?? '';
}

/** The upstream: the baseline server answering upstreamBody() to everything, until disposed. */
export function startUpstream(baselineServer: string) {
  return startSameBodyServer(baselineServer, upstreamBody());
}

const NODE_FORWARDER = fileURLToPath(new URL('./node-forwarder.ts', import.meta.url));
const EXPRESS_FORWARDER = fileURLToPath(new URL('./express-forwarder.ts', import.meta.url));

/**
 * The floor (docs/adr/0074): a bare Node forwarder (bench/node-forwarder.ts: node:http server,
 * keep-alive Agent, pipe, nothing else) in its own process in front of the upstream, answering
 * UPSTREAM_PATH's answer to every request. Stopped by its pid when disposed.
 */
export function startNodeForwarder(upstreamUrl: string) {
  return startReadyProcess({ args: [NODE_FORWARDER, `${upstreamUrl}${UPSTREAM_PATH}`] });
}

/**
 * The chosen libraries' floor (docs/adr/0081): express with http-proxy-middleware as its one
 * middleware (bench/express-forwarder.ts) in its own process in front of the upstream, answering
 * UPSTREAM_PATH's answer to every request. Stopped by its pid when disposed.
 */
export function startExpressForwarder(upstreamUrl: string) {
  return startReadyProcess({ args: [EXPRESS_FORWARDER, `${upstreamUrl}${UPSTREAM_PATH}`] });
}

/** The upstream and a stack whose owner connected GitHub at it, with an agent's token. */
export async function proxiedSubject(baselineServer: string): Promise<ProxiedSubject> {
  const upstream = await startUpstream(baselineServer);
  let stack: StackProcess | undefined;
  try {
    stack = await startStackProcess({ env: proxiedStackEnv(upstream.server.url) });
    const token = await connectOwner(stack);
    const running = stack;
    return {
      upstream: { url: upstream.server.url, pid: upstream.server.pid },
      stack: running,
      token,
      body: upstreamBody(),
      [Symbol.asyncDispose]: async () => {
        await running.stop();
        await upstream[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await stack?.stop();
    await upstream[Symbol.asyncDispose]();
    throw error;
  }
}

/**
 * The audit rows of the proxied calls in the stack's log: one per call (docs/adr/0069), the
 * gateway's request row answered 200 that names the service and the upstream's 200 (`calls`);
 * and any `proxy.call` action row (`separate`), which a proxied call no longer has.
 */
export async function proxiedAuditRows(stack: StackProcess): Promise<{ calls: number; separate: number }> {
  const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  const db = createPrismaClient(PrismaClient, { databaseUrl, schema: auditDatabase.schema });
  try {
    const [row] = await db.$queryRaw<{ calls: bigint; separate: bigint }[]>`
      SELECT count(*) FILTER (WHERE kind = 'request' AND method = 'GET' AND path = ${PROXIED_PATH}
                                AND target = 'github' AND detail->>'upstreamStatus' = '200') AS calls,
             count(*) FILTER (WHERE kind = 'action' AND action = 'proxy.call') AS separate
        FROM audit.records WHERE status = 200`;
    return { calls: Number(row?.calls ?? 0), separate: Number(row?.separate ?? 0) };
  } finally {
    await db.$disconnect();
  }
}
