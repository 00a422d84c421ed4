/**
 * The brain's scenarios: GET /api/v1/gateway/context and POST /api/v1/memory through the whole
 * pipeline of the embedded stack (introspection, scope, usage count, audit, bus, brain,
 * PostgreSQL) with a dashboard token of scope `full` made by `pag token create`. The context is
 * measured with an empty memory and with 100,000 entries of the owner (rows inserted with one
 * INSERT through the stack's own PostgreSQL, beside the one written over HTTP, so they are the
 * owner's real rows as the brain reads them). Every answer is checked: the context's status,
 * its memory count against the rows in the table and no part unavailable; each write's 201 and
 * its entry, and afterwards the rows counted.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StackProcess } from '@pag/testkit';
import { createPrismaClient } from '../packages/kit/src/mod.ts';
import { brainDatabase } from '../services/brain/src/database.ts';
import { PrismaClient } from '../services/brain/src/generated/prisma/client.ts';
import { pag } from './capabilities-load.ts';
import type { LoadOptions } from './measure.ts';

const PASSWORD = 'correct horse battery staple';
/** The owner whose memory the context with an empty memory and the memory write use. */
const OWNER = 'bench-brain@example.test';
/** The owner whose memory is filled for the context with a full memory. */
export const FULL_OWNER = 'bench-brain-full@example.test';
export const CONTEXT_PATH = '/api/v1/gateway/context';
export const MEMORY_PATH = '/api/v1/memory';
/** The owner's entries in the second context measurement. */
export const FULL_MEMORY_ROWS = 100_000;

type Load = Omit<LoadOptions, 'connections' | 'durationSeconds' | 'pids'>;

/** The owner and its token of scope `full`, and the brain's rows of that owner in PostgreSQL. */
export interface BrainSubject {
  url: string;
  token: string;
  /** Entries of the owner in brain.memory_entries, counted. */
  rows(): Promise<number>;
  /**
   * Inserts entries of the owner's agent (one statement) until the owner has `total`, then
   * vacuums and analyzes the table, as autovacuum would soon after: a memory that grew over
   * months is in that state, and the vacuum of a fresh bulk insert is not the context's cost.
   */
  fillMemory(total: number): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function brainSubject(stack: StackProcess, email = OWNER): Promise<BrainSubject> {
  await pag(stack.dataDir, 'owner', 'create', '--email', email, '--password', PASSWORD);
  const created = await pag(
    stack.dataDir,
    ...['token', 'create', '--owner', email, '--name', 'Bench brain agent', '--scopes', 'full'],
  );
  const token = created.at(-1) ?? '';
  const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  const db = createPrismaClient(PrismaClient, { databaseUrl, schema: brainDatabase.schema });
  // The owner's account and agent as the brain stores them: from a first entry written over HTTP,
  // deleted again so that the memory starts empty.
  const first = await fetch(`${stack.url}${MEMORY_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'bench: the first note, written over HTTP' }),
  });
  const entry = (await first.json()) as { id: string };
  if (first.status !== 201)
    throw new Error(`memory write answered ${first.status}: ${JSON.stringify(entry)}`);
  const [owner] = await db.$queryRaw<{ accountId: string; agentId: string | null }[]>`
    SELECT account_id::text AS "accountId", agent_id AS "agentId" FROM brain.memory_entries WHERE id = ${entry.id}`;
  if (owner === undefined) throw new Error(`entry ${entry.id} is not in brain.memory_entries`);
  await db.$executeRaw`DELETE FROM brain.memory_entries WHERE id = ${entry.id}`;
  const rows = async () => {
    const [row] = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM brain.memory_entries WHERE account_id = ${owner.accountId}::uuid`;
    return Number(row?.n ?? 0n);
  };
  return {
    url: stack.url,
    token,
    rows,
    fillMemory: async (total) => {
      const missing = total - (await rows());
      // Ids in the brain's shape (mem_ and 22 characters of [a-z0-9]); seq and created_at as defaulted.
      await db.$executeRaw`
        INSERT INTO brain.memory_entries (id, account_id, agent_id, content)
        SELECT 'mem_' || substr(md5(random()::text || g), 1, 22), ${owner.accountId}::uuid, ${owner.agentId},
               'bench: note ' || g || ', inserted by SQL for the context with a full memory'
        FROM generate_series(1, ${missing}::int) AS g`;
      await db.$executeRawUnsafe('VACUUM (ANALYZE) brain.memory_entries');
    },
    [Symbol.asyncDispose]: () => db.$disconnect(),
  };
}

/**
 * The context, every answer checked: the memory count of the owner's `rows`, the newest entries
 * up to the bound, no part unavailable. The first answer is parsed and checked in full and
 * returned (the baseline serves its bytes); the load's answers are checked by their markers, so
 * checking does not take the cores the stack needs.
 */
export async function contextLoad(subject: BrainSubject, bound: number) {
  const headers = { authorization: `Bearer ${subject.token}` };
  const url = `${subject.url}${CONTEXT_PATH}`;
  const rows = await subject.rows();
  const first = await fetch(url, { headers });
  const body = Buffer.from(await first.arrayBuffer());
  const context = JSON.parse(body.toString()) as {
    memory: unknown[] | null;
    memoryCount: number | null;
    unavailable: unknown[];
  };
  if (
    first.status !== 200 ||
    context.memoryCount !== rows ||
    context.memory?.length !== Math.min(rows, bound) ||
    context.unavailable.length !== 0
  )
    throw new Error(`context answered ${first.status} for ${rows} rows: ${body.toString().slice(0, 500)}`);
  const markers = [`"memoryCount":${rows},`, '"unavailable":[]'];
  const load = (): Load => ({
    url,
    headers,
    verifyBody: (text) => markers.every((marker) => text.includes(marker)),
  });
  return { rows, body, load };
}

/**
 * Memory writes, each request its own note (run, connection and sequence number in it); an answer
 * counts only as a 201 with the entry of that note. `written` counts those answers over every run,
 * `wrong` the other answers of the latest run (a failed connection is autocannon's own error).
 */
export function memoryWriteLoad(subject: BrainSubject) {
  const counts = { written: 0, wrong: 0 };
  let run = 0;
  const load = (): Load => {
    run += 1;
    counts.wrong = 0;
    return {
      url: `${subject.url}${MEMORY_PATH}`,
      connectionRequests: (index) => {
        let sequence = 0;
        let sent = '';
        return [
          {
            method: 'POST',
            path: MEMORY_PATH,
            headers: { authorization: `Bearer ${subject.token}`, 'content-type': 'application/json' },
            setupRequest: (request) => {
              sequence += 1;
              sent = `bench: run ${run}, connection ${index}, note ${sequence}`;
              return { ...request, body: JSON.stringify({ content: sent }) };
            },
            onResponse: (status, body) => {
              if (
                status === 201 &&
                body.includes(`"content":${JSON.stringify(sent)}`) &&
                body.includes('"id":"mem_')
              )
                counts.written += 1;
              else counts.wrong += 1;
            },
          },
        ];
      },
    };
  };
  return { counts, load };
}
