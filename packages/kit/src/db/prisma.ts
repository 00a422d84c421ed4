/**
 * The one way services build their Prisma client: Prisma 7's driver adapter for node-postgres
 * (no query engine binary), bound to the service's own schema. The connection's search_path is
 * that schema too, so raw SQL sees the same tables as the client, as with Prisma's `?schema=` URL.
 *
 * Statements are prepared once per connection (named by a hash of their SQL), so PostgreSQL
 * plans a hot query once rather than on every call: for the auth service's token lookup planning
 * took longer than running it (bench/profile-notes.md). node-postgres keeps the names per
 * connection; at most PREPARED_MAX distinct statements are named, later ones run unnamed.
 *
 * Every query's arguments are checked first (storable-arguments.ts): text PostgreSQL cannot store
 * is a 400 INVALID_TEXT, never a database error.
 *
 * A transaction may wait TRANSACTION_MAX_WAIT_MS to start (Prisma's default is 2 s): see below.
 *
 * Closing: `await client.$disconnect()` ends the pool (register it as a Shutdown closer).
 *
 * The pool is made here and handed to the adapter, so a store can run its hottest statements on
 * the same connections without Prisma (`sqlPoolOf`): Prisma's request pipeline costs about 0.3 ms
 * of CPU per statement beyond node-postgres' own (bench/profile-notes.md).
 */
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from '../log/logger.ts';
import { quoteSchema } from './schema-name.ts';
import { storableArguments } from './storable-arguments.ts';

export interface PrismaClientOptions {
  /** Never logged: it carries the password. */
  databaseUrl: string;
  /** The service's Postgres schema (the one in its schema.prisma `schemas`). */
  schema: string;
  /** Receives errors of idle pooled connections (a restarted database), which are otherwise dropped. */
  logger?: Logger;
  /** Upper bound of pooled connections; node-postgres defaults to 10. */
  maxConnections?: number;
}

const PREPARED_MAX = 500;

/**
 * How long `$transaction` waits for its connection and BEGIN before failing with P2028 "Unable to
 * start a transaction in the given time". That wait is the pool's: a new connection when none is
 * idle (TCP, SCRAM, a new backend process: tens of ms idle, seconds on a loaded machine, which is
 * how a service's first transaction after start-up failed under load), or a busy pool's queue.
 * Plain queries wait for the same pool with no bound (node-postgres' connectionTimeoutMillis is
 * 0), so at Prisma's 2 s a busy moment failed the transactions (500s) while the queries beside
 * them went through. 10 s is the gateway's DISPATCH_TIMEOUT_MS default: past it nobody waits for
 * the answer anyway.
 */
export const TRANSACTION_MAX_WAIT_MS = 10_000;

/**
 * How long an interactive `$transaction` may run, once started, before Prisma rolls it back and
 * fails with P2028 (Prisma's default: 5 s). Every statement of it is a round trip to PostgreSQL;
 * on a loaded machine a few of them took 6.6 s (the proxy's API-key store in a CI run on 2 busy
 * cores), and the rollback threw away work that was nearly done, as a 500. Nothing holds a
 * transaction open on purpose (no transaction waits for a person or the network), so the bound is
 * only against a stuck one; 15 s, as the auth service's stores already set for theirs.
 */
export const TRANSACTION_TIMEOUT_MS = 15_000;
const PLANNABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** A name per distinct SQL text (the same text always gets the same name, in every connection). */
function statementNames(): (query: { sql: string }) => string | undefined {
  const names = new Map<string, string>();
  return ({ sql }) => {
    // Only plannable statements: DDL and transaction control run unnamed, as before.
    if (!PLANNABLE.test(sql)) return undefined;
    const known = names.get(sql);
    if (known !== undefined || names.size >= PREPARED_MAX) return known;
    const name = `pag_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
    names.set(sql, name);
    return name;
  };
}

/** What kit needs of a generated client: every Prisma 7 client has it. */
export interface DisconnectableClient {
  $disconnect(): Promise<void>;
}

/** Prisma's $extends, as far as kit uses it (the generated typing is per client). */
interface ExtendableClient {
  $extends(extension: typeof storableArguments): unknown;
}

/**
 * Builds a generated client with the adapter. Pass the generated `PrismaClient` class; the result
 * keeps its exact type: `const db = createPrismaClient(PrismaClient, { databaseUrl, schema })`.
 */
export function createPrismaClient<Client extends DisconnectableClient>(
  PrismaClientClass: new (options: {
    adapter: PrismaPg;
    transactionOptions: { maxWait: number; timeout: number };
  }) => Client,
  options: PrismaClientOptions,
): Client {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    options: `-c search_path=${quoteSchema(options.schema)}`,
    application_name: `pag-${options.schema}`,
    max: options.maxConnections,
  });
  // An idle connection that fails (a restarted database) is an 'error' event of the pool, which
  // throws when nobody listens. The adapter listens only once Prisma itself connected
  // (@prisma/adapter-pg's connect()); a store that reads through sqlPoolOf alone would take the
  // process down, so the pool listens from the start. The message and code only: pg's error
  // carries its client object, connection settings included.
  pool.on('error', (error) =>
    options.logger?.warn(
      { error: error.message, code: (error as { code?: unknown }).code },
      'idle database connection failed',
    ),
  );
  const adapter = new PrismaPg(pool, {
    schema: options.schema,
    // The pool is this client's alone: $disconnect ends it, as it ended the adapter's own.
    disposeExternalPool: true,
    onConnectionError: (error) =>
      options.logger?.warn(
        { error: error.message, code: (error as { code?: unknown }).code },
        'database connection failed',
      ),
    // The typings say string; node-postgres takes undefined as "unnamed" (pg's Query: `name` optional).
    statementNameGenerator: statementNames() as (query: { sql: string }) => string,
  });
  const client = new PrismaClientClass({
    adapter,
    transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS },
  });
  // A query-only extension adds no methods and changes no result types: the client's own type
  // stays true of the extended one.
  const extended = (client as unknown as ExtendableClient).$extends(storableArguments) as Client;
  const disconnect = async () => {
    await extended.$disconnect();
    if (!pool.ending && !pool.ended) await pool.end();
  };
  // Everything else is the client's own, called on it (Prisma's methods need it as `this`).
  const owned = new Proxy(extended, {
    get(target, property) {
      if (property === '$disconnect') return disconnect;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  pools.set(owned, pool);
  return owned;
}

const pools = new WeakMap<DisconnectableClient, pg.Pool>();

/**
 * The node-postgres pool under a client made by createPrismaClient: the same connections and
 * search_path. For a store's few hot statements, named (`{ name, text, values }`: prepared once
 * per connection); their arguments are the store's to check (storableArguments does not see
 * them: text from a validated contract schema is storable already).
 */
export function sqlPoolOf(client: DisconnectableClient): pg.Pool {
  const pool = pools.get(client);
  if (pool === undefined) throw new Error('not a client made by createPrismaClient');
  return pool;
}
