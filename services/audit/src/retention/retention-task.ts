/**
 * Retention (AUDIT_RETENTION_DAYS, AUDIT_SEGMENT_ROWS), as a task of kit's purge job: old rows
 * go in whole segments, and the log stays verifiable. It finds the largest B = k·SEGMENT_ROWS
 * such that every row with seq ≤ B was recorded before the cutoff and B is below the head (the
 * newest row always stays: the writer chains on to it), makes sure a signed checkpoint stands at
 * exactly B (the anchor: verify starts from its hash, whose signature it checks), and calls
 * audit.prune_through(B), which refuses unless that checkpoint matches row B.
 */
import type { PurgeTask } from '@pag/kit';
import { signCheckpoint } from '../checkpoints/checkpoint-signature.ts';
import type { SigningKey } from '../checkpoints/signing-keys.ts';
import type { ChainHead } from '../store/chain-head.ts';
import type { CheckpointStore } from '../store/checkpoint-store.ts';
import type { RetentionStore } from '../store/retention-store.ts';

const DAY_MS = 86_400_000;

export interface RetentionOptions {
  retentionDays: number;
  segmentRows: number;
  store: RetentionStore;
  checkpoints: CheckpointStore;
  head: () => Promise<ChainHead>;
  key: SigningKey;
  now?: () => Date;
}

/** The last seq retention may delete through now, or null when no whole old segment is below the head. */
export async function pruneBoundary(options: RetentionOptions, cutoff: Date): Promise<number | null> {
  const { store, segmentRows } = options;
  const [first, head] = [await store.firstSeq(), await options.head()];
  if (first === null) return null;
  let through: number | null = null;
  let after = first - 1;
  for (
    let boundary = Math.ceil(first / segmentRows) * segmentRows;
    boundary < head.seq;
    boundary += segmentRows
  ) {
    if (!(await store.allRecordedBefore(after, boundary, cutoff))) break;
    through = boundary;
    after = boundary;
  }
  return through;
}

export function retentionTask(options: RetentionOptions): PurgeTask {
  const now = options.now ?? (() => new Date());
  return {
    name: 'audit retention',
    async run() {
      // 0: keep forever.
      if (options.retentionDays === 0) return 0;
      const at = now();
      const through = await pruneBoundary(options, new Date(at.getTime() - options.retentionDays * DAY_MS));
      if (through === null) return 0;
      if ((await options.checkpoints.at(through)) === null) {
        const hash = await options.store.hashAt(through);
        // Gone since: another replica pruned it.
        if (hash === null) return 0;
        // Another replica may write the same anchor first: theirs stands, and is as good.
        await options.checkpoints.add(signCheckpoint(options.key, { seq: through, hash }, at));
      }
      return options.store.pruneThrough(through);
    },
  };
}
