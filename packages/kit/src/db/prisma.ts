/**
 * The one way services build their Prisma client: Prisma 7's driver adapter for node-postgres
 * (no query engine binary), bound to the service's own schema. The connection's search_path is
 * that schema too, so raw SQL sees the same tables as the client, as with Prisma's `?schema=` URL.
 *
 * Closing: `await client.$disconnect()` ends the adapter's pool (register it as a Shutdown closer).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { Logger } from '../log/logger.ts';
import { quoteSchema } from './schema-name.ts';

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

/** What kit needs of a generated client: every Prisma 7 client has it. */
export interface DisconnectableClient {
  $disconnect(): Promise<void>;
}

/**
 * Builds a generated client with the adapter. Pass the generated `PrismaClient` class; the result
 * keeps its exact type: `const db = createPrismaClient(PrismaClient, { databaseUrl, schema })`.
 */
export function createPrismaClient<Client extends DisconnectableClient>(
  PrismaClientClass: new (options: { adapter: PrismaPg }) => Client,
  options: PrismaClientOptions,
): Client {
  const adapter = new PrismaPg(
    {
      connectionString: options.databaseUrl,
      options: `-c search_path=${quoteSchema(options.schema)}`,
      application_name: `pag-${options.schema}`,
      max: options.maxConnections,
    },
    {
      schema: options.schema,
      onPoolError: (error) => options.logger?.warn({ err: error }, 'idle database connection failed'),
      onConnectionError: (error) => options.logger?.warn({ err: error }, 'database connection failed'),
    },
  );
  return new PrismaClientClass({ adapter });
}
