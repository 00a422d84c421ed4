/**
 * Resident memory of a serving Node process and the processes under it (the embedded PostgreSQL:
 * its server and backends), as proportional set size (PSS, /proc/<pid>/smaps_rollup): a page
 * shared by n processes counts 1/n in each, so PostgreSQL's shared buffers count once over its
 * processes. PSS also splits pages shared with processes outside the measured ones (the Node
 * binary's code with this bench process and any other Node 24 running), so the Node process's
 * RSS, where those count in full, is kept beside it: the total on a machine running only the stack.
 */
import { readFile } from 'node:fs/promises';
import { descendantPids } from './measure.ts';

export interface MemorySample {
  /** The Node process. */
  nodePssKiB: number;
  nodeRssKiB: number;
  /** Every process under it (PostgreSQL's server and backends), summed. */
  postgresPssKiB: number;
  postgresProcesses: number;
}

/** PSS and RSS of a process in KiB (0 when it is gone). */
async function rollup(pid: number): Promise<{ pss: number; rss: number }> {
  try {
    const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0);
    return { pss: field('Pss'), rss: field('Rss') };
  } catch {
    return { pss: 0, rss: 0 };
  }
}

export async function sampleMemory(pid: number): Promise<MemorySample> {
  const below = await descendantPids(pid);
  const [node, ...postgres] = await Promise.all([pid, ...below].map(rollup));
  return {
    nodePssKiB: node?.pss ?? 0,
    nodeRssKiB: node?.rss ?? 0,
    postgresPssKiB: postgres.reduce((sum, p) => sum + p.pss, 0),
    postgresProcesses: below.length,
  };
}

/** The measure: PSS of every process. */
export const totalPssKiB = (m: MemorySample) => m.nodePssKiB + m.postgresPssKiB;
/** The same with the Node process's pages shared outside the stack counted in full. */
export const aloneKiB = (m: MemorySample) => m.nodeRssKiB + m.postgresPssKiB;
