/**
 * The one way into the log: append(events) writes a batch in one statement and one transaction
 * (audit.append_batch), as the next rows of the one global chain. The ingest appends what arrives
 * on the AUDIT stream; tests and the ingest benchmark append directly.
 *
 * What it enforces (docs/adr/0038):
 * - one writer at a time over the whole database (a transaction-scoped advisory lock), so
 *   replicas never fork the chain or leave a gap;
 * - gap-free seq in commit order: the head is read under the lock, and the lock is held until
 *   COMMIT, so the next writer sees this batch's rows;
 * - an event id is stored once: ids already stored are skipped under the lock, and repeats inside
 *   the batch before it is sent;
 * - a batch is written whole or not at all: every event is checked before anything is sent, and
 *   all rows go in one INSERT.
 */
import type { AuditEvent } from '@pag/contracts';
import { sqlPoolOf } from '@pag/kit';
import { canonicalContent } from '../chain/chain-hash.ts';
import { recordContent } from '../chain/record-content.ts';
import type { StorableEvent } from '../chain/storable-event.ts';
import { checkAuditEvent } from '../chain/storable-event.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ChainHead } from './chain-head.ts';
import { readHead } from './chain-head.ts';

export interface AppendResult {
  /** Rows written by this call, in order. */
  readonly stored: number;
  /** Events dropped because their id was stored already (or repeated in the batch). */
  readonly duplicates: number;
  /** The log's newest row after the commit. */
  readonly head: ChainHead;
}

/** An event that cannot be stored: nothing of its batch was written. */
export class InvalidAuditEventError extends Error {
  readonly index: number;
  readonly problem: string;

  constructor(index: number, problem: string) {
    super(`audit event ${index} cannot be stored: ${problem}`);
    this.index = index;
    this.problem = problem;
    this.name = 'InvalidAuditEventError';
  }
}

export class AuditLog {
  readonly #prisma: PrismaClient;
  readonly #sql: ReturnType<typeof sqlPoolOf>;
  readonly #now: () => Date;

  /** `now`: the clock of recorded_at (tests of retention set it back). */
  constructor(prisma: PrismaClient, options: { now?: () => Date } = {}) {
    this.#prisma = prisma;
    // append_batch runs for every batch of the stream, at least once per request under a light
    // load: a named statement on the client's node-postgres pool (kit's sqlPoolOf), not Prisma's
    // $queryRaw, whose request pipeline cost about 0.3 ms of CPU per statement (docs/adr/0043).
    // Its arguments come from StorableEvents (checkAuditEvent refused unstorable text already).
    this.#sql = sqlPoolOf(prisma);
    this.#now = options.now ?? (() => new Date());
  }

  /** Checks every event first: one that cannot be stored throws InvalidAuditEventError, and nothing is written. */
  async append(events: readonly AuditEvent[]): Promise<AppendResult> {
    const checked = events.map((event, index) => {
      const check = checkAuditEvent(event);
      if (!check.ok) throw new InvalidAuditEventError(index, check.problem);
      return check.event;
    });
    return this.appendChecked(checked);
  }

  /**
   * Events checkAuditEvent passed already (the ingest checks each message once). One statement,
   * so one round trip: audit.append_batch (migration 20261125000000) takes the append lock, reads
   * the head, skips ids already stored, chains the hashes over the canonical JSON made here, and
   * inserts, in the statement's own transaction. recorded_at is this writer's clock when it sends
   * the batch: within a writer it follows seq; between replicas, only as closely as their clocks.
   */
  async appendChecked(checked: readonly StorableEvent[]): Promise<AppendResult> {
    const { rows } = await this.#sql.query<AppendBatchRow>(appendBatchStatement(checked, this.#now()));
    const [result] = rows;
    if (result === undefined) throw new Error('audit.append_batch returned no row');
    return {
      stored: result.stored,
      duplicates: checked.length - result.stored,
      head: { seq: Number(result.head_seq), hash: result.head_hash },
    };
  }

  /** The newest row (or the retention anchor, or nothing yet), read without the lock. */
  head(): Promise<ChainHead> {
    return readHead(this.#prisma);
  }
}

/** What audit.append_batch answers (head_seq as text). */
export interface AppendBatchRow {
  stored: number;
  head_seq: string;
  head_hash: string;
}

/**
 * The one statement of an append, as a named node-postgres query: one JSON array of the batch's
 * canonical JSON texts, each event id once. The text is what the chain hashes and what the row's
 * columns are read from (migration 20261125000000, docs/adr/0073): one JSON.stringify of strings,
 * where the columns as JSONB and the texts as a TEXT[] were each row built twice, the second time
 * escaped element by element in node-postgres' JavaScript (pg/lib/utils.js escapeElement).
 * Exported for the test that reads what the statement scans (test/append-plans.test.ts) on a
 * connection of its own.
 */
export function appendBatchStatement(
  checked: readonly StorableEvent[],
  recordedAt: Date,
): { name: string; text: string; values: [string] } {
  const contents = firstOfEachId(checked).map((event) => canonicalContent(recordContent(event, recordedAt)));
  return {
    name: 'audit_append_canonical',
    // head_seq as text: node-postgres gives a bigint as a string anyway, and says so here.
    text: 'SELECT stored, head_seq::text AS head_seq, head_hash FROM audit.append_batch($1::json)',
    values: [JSON.stringify(contents)],
  };
}

/** Each event id once, the first of the batch (ids already stored are skipped by append_batch). */
function firstOfEachId(events: readonly StorableEvent[]): StorableEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => {
    const id = event.eventId.toLowerCase();
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
