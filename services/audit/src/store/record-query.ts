/**
 * The owner's read side of the log: one AuditQuery → one AuditPage, for the bus handler
 * (handlers/records-list.ts, which the dashboard asks) and for `pag audit list`, which reads the
 * database directly. One piece of SQL for both, so they cannot disagree on what matches.
 *
 * What it enforces (docs/adr/0040):
 * - tenancy: every query is `account_id = $1` first; there is no way to ask without an account;
 * - newest first, paged by seq (`before`): rows are append-only and seq is gap-free in commit
 *   order, so a page boundary never moves, whatever is appended while someone pages;
 * - the planner can walk (account_id, seq DESC), or (account_id, agent_id, seq DESC) with an
 *   agent, backwards from `before` and stop after limit + 1 rows; the other filters are checked on
 *   the rows it walks (test/record-query.test.ts reads EXPLAIN);
 * - a path prefix is matched literally: `%`, `_` and `\` in it are escaped for LIKE.
 */
import type { AuditPage, AuditRecord } from '@pag/contracts';
import { AuditQuery } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import type { z } from 'zod';
import { auditDatabase } from '../database.ts';
import type { AuditRow } from '../generated/prisma/client.ts';
import { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { recordFromRow } from './record-row.ts';

/** A LIKE pattern matching text that begins with `prefix`, character for character. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The statuses of a filter: one status, or a class such as '4xx' (400 ≤ status < 500). */
function statusCondition(status: NonNullable<AuditQuery['status']>): Prisma.Sql {
  if (typeof status === 'number') return Prisma.sql`status = ${status}`;
  const low = Number(status[0]) * 100;
  return Prisma.sql`status >= ${low} AND status < ${low + 100}`;
}

/** The WHERE clause of a query: the account always, then each filter given. */
function conditions(query: AuditQuery): Prisma.Sql {
  const parts = [Prisma.sql`account_id = ${query.accountId}`];
  if (query.agentId !== undefined) parts.push(Prisma.sql`agent_id = ${query.agentId}`);
  if (query.before !== undefined) parts.push(Prisma.sql`seq < ${query.before}`);
  if (query.status !== undefined) parts.push(statusCondition(query.status));
  if (query.decision !== undefined) parts.push(Prisma.sql`decision = ${query.decision}`);
  if (query.pathPrefix !== undefined)
    parts.push(Prisma.sql`path LIKE ${likePrefix(query.pathPrefix)} ESCAPE '\\'`);
  if (query.since !== undefined) parts.push(Prisma.sql`time >= ${new Date(query.since)}`);
  if (query.until !== undefined) parts.push(Prisma.sql`time < ${new Date(query.until)}`);
  return Prisma.join(parts, ' AND ');
}

/**
 * The SELECT of one page: limit + 1 rows, the extra one only telling that there is a next page.
 * The columns are named as the Prisma model's fields, so a row reads like one of findMany.
 */
export function pageSql(query: AuditQuery): Prisma.Sql {
  return Prisma.sql`
    SELECT seq, event_id::text AS "eventId", kind, source, request_id AS "requestId", time,
      recorded_at AS "recordedAt", account_id AS "accountId", client_id AS "clientId",
      agent_id AS "agentId", token_kind AS "tokenKind", actor_type AS "actorType",
      actor_id AS "actorId", action, target, client_address AS "clientAddress", method, path,
      status, decision, reason, latency_ms AS "latencyMs", bytes_in AS "bytesIn",
      bytes_out AS "bytesOut", detail, prev_hash AS "prevHash", hash
    FROM audit.records
    WHERE ${conditions(query)}
    ORDER BY seq DESC
    LIMIT ${query.limit + 1}`;
}

function withoutChainLink({ prevHash: _, ...record }: AuditRecord & { prevHash: string }): AuditRecord {
  return record;
}

/** Reads one owner's rows; the only reader of the log besides verify. */
export class AuditRecords {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** One page, newest first; `nextBefore` is the `before` of the next page, null on the last. */
  async page(input: z.input<typeof AuditQuery>): Promise<AuditPage> {
    // Parsed again: the CLI builds queries too, and the SQL relies on the schema's bounds.
    const query = AuditQuery.parse(input);
    // Raw rows carry the same values findMany gives (bigint, Decimal, Date, JSON), by the same names.
    const rows = await this.#prisma.$queryRaw<AuditRow[]>(pageSql(query));
    const records = rows.slice(0, query.limit).map((row) => withoutChainLink(recordFromRow(row)));
    const last = records.at(-1);
    return { records, nextBefore: rows.length > query.limit && last !== undefined ? last.seq : null };
  }
}

export interface OpenAuditRecords extends AsyncDisposable {
  readonly records: AuditRecords;
  close(): Promise<void>;
}

/** AuditRecords on its own database client, for `pag audit list`. close() disconnects it. */
export function openAuditRecords(options: { databaseUrl: string; logger?: Logger }): OpenAuditRecords {
  const prisma = createPrismaClient(PrismaClient, { ...options, schema: auditDatabase.schema });
  const close = () => prisma.$disconnect();
  return { records: new AuditRecords(prisma), close, [Symbol.asyncDispose]: close };
}
