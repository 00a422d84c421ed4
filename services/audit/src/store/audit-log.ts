/**
 * The one way into the log: append(events) writes a batch in one transaction, as the next rows of
 * the one global chain. The ingest appends what arrives on the AUDIT stream; the `pag` CLI
 * appends an operator's actions directly.
 *
 * What it enforces (docs/adr/0038):
 * - one writer at a time over the whole database (a transaction-scoped advisory lock), so
 *   replicas and the CLI never fork the chain or leave a gap;
 * - gap-free seq in commit order: the head is read under the lock, and the lock is held until
 *   COMMIT, so the next writer sees this batch's rows;
 * - an event id is stored once: ids already stored are dropped (one `= ANY` query under the lock),
 *   and so are repeats inside the batch;
 * - a batch is written whole or not at all: every event is checked before anything is sent, and
 *   all rows go in one INSERT.
 */
import type { AuditEvent } from '@pag/contracts';
import type { ChainContent } from '../chain/chain-hash.ts';
import { chainHash } from '../chain/chain-hash.ts';
import { recordContent } from '../chain/record-content.ts';
import type { StorableEvent } from '../chain/storable-event.ts';
import { checkAuditEvent } from '../chain/storable-event.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ChainHead, Transaction } from './chain-head.ts';
import { lockLog, readHead } from './chain-head.ts';

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

interface NewRow extends ChainContent {
  seq: number;
  prevHash: string;
  hash: string;
}

export class AuditLog {
  readonly #prisma: PrismaClient;
  readonly #now: () => Date;

  /** `now`: the clock of recorded_at (tests of retention set it back). */
  constructor(prisma: PrismaClient, options: { now?: () => Date } = {}) {
    this.#prisma = prisma;
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

  /** Events checkAuditEvent passed already (the ingest checks each message once). */
  appendChecked(checked: readonly StorableEvent[]): Promise<AppendResult> {
    return this.#prisma.$transaction(async (tx) => {
      await lockLog(tx);
      const head = await readHead(tx);
      const fresh = await dropStored(tx, checked);
      if (fresh.length === 0) return { stored: 0, duplicates: checked.length, head };
      // Taken under the lock: recorded_at follows the order of seq (on one clock).
      const recordedAt = this.#now();
      const rows: NewRow[] = [];
      let prev = head;
      for (const event of fresh) {
        const content = recordContent(event, recordedAt);
        const row = {
          ...content,
          seq: prev.seq + 1,
          prevHash: prev.hash,
          hash: chainHash(prev.hash, content),
        };
        rows.push(row);
        prev = { seq: row.seq, hash: row.hash };
      }
      await insertRows(tx, rows);
      return { stored: rows.length, duplicates: checked.length - rows.length, head: prev };
    });
  }

  /** The newest row (or the retention anchor, or nothing yet), read without the lock. */
  head(): Promise<ChainHead> {
    return readHead(this.#prisma);
  }
}

/** The events whose id is not stored yet, each id once (the first one of the batch). */
async function dropStored(tx: Transaction, events: readonly StorableEvent[]): Promise<StorableEvent[]> {
  const ids = events.map((event) => event.eventId.toLowerCase());
  const stored = await tx.$queryRaw<{ event_id: string }[]>`
    SELECT event_id::text FROM audit.records WHERE event_id = ANY(${ids}::uuid[])`;
  const seen = new Set(stored.map((row) => row.event_id));
  return events.filter((_, index) => {
    const id = ids[index] as string;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Every row in one statement: one array per column, unnested into rows. */
async function insertRows(tx: Transaction, rows: NewRow[]): Promise<void> {
  const column = <T>(pick: (row: NewRow) => T): T[] => rows.map(pick);
  await tx.$executeRaw`
    INSERT INTO audit.records (seq, event_id, kind, source, request_id, time, recorded_at, account_id,
      client_id, agent_id, token_kind, actor_type, actor_id, action, target, client_address, method,
      path, status, decision, reason, latency_ms, bytes_in, bytes_out, detail, prev_hash, hash)
    SELECT seq, event_id, kind, source, request_id, time, recorded_at, account_id, client_id, agent_id,
      token_kind, actor_type, actor_id, action, target, client_address, method, path, status, decision,
      reason, latency_ms, bytes_in, bytes_out, detail::jsonb, prev_hash, hash
    FROM unnest(
      ${column((row) => row.seq)}::bigint[], ${column((row) => row.eventId)}::uuid[],
      ${column((row) => row.kind)}::text[], ${column((row) => row.source)}::text[],
      ${column((row) => row.requestId)}::text[], ${column((row) => row.time)}::timestamptz[],
      ${column((row) => row.recordedAt)}::timestamptz[], ${column((row) => row.accountId)}::text[],
      ${column((row) => row.clientId)}::text[], ${column((row) => row.agentId)}::text[],
      ${column((row) => row.tokenKind)}::text[], ${column((row) => row.actorType)}::text[],
      ${column((row) => row.actorId)}::text[], ${column((row) => row.action)}::text[],
      ${column((row) => row.target)}::text[], ${column((row) => row.clientAddress)}::text[],
      ${column((row) => row.method)}::text[], ${column((row) => row.path)}::text[],
      ${column((row) => row.status)}::integer[], ${column((row) => row.decision)}::text[],
      ${column((row) => row.reason)}::text[], ${column((row) => row.latencyMs)}::numeric[],
      ${column((row) => row.bytesIn)}::bigint[], ${column((row) => row.bytesOut)}::bigint[],
      ${column((row) => JSON.stringify(row.detail))}::text[], ${column((row) => row.prevHash)}::text[],
      ${column((row) => row.hash)}::text[]
    ) AS r(seq, event_id, kind, source, request_id, time, recorded_at, account_id, client_id, agent_id,
      token_kind, actor_type, actor_id, action, target, client_address, method, path, status, decision,
      reason, latency_ms, bytes_in, bytes_out, detail, prev_hash, hash)`;
}
