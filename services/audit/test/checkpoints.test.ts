/**
 * Signed checkpoints of the head, written by the running service: every interval when the head
 * moved (not when it did not), and once more on close, so a graceful stop leaves the tail signed.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { createLogger } from '@pag/kit';
import { eventually } from '@pag/kit/testing';
import { verifyCheckpoint } from '../src/checkpoints/checkpoint-signature.ts';
import { startCheckpointer } from '../src/checkpoints/checkpointer.ts';
import { signingKeyFromSeed, verifyKeys } from '../src/checkpoints/signing-keys.ts';
import { CheckpointStore } from '../src/store/checkpoint-store.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { newSigningKey } from './support/audit-login.ts';
import { requestEvent } from './support/events.ts';
import type { TestAudit } from './support/start-test-audit.ts';
import { startTestAudit } from './support/start-test-audit.ts';

let t: TestAudit | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const append = async (audit: TestAudit, n: number) => {
  await using writer = openAuditLog({ databaseUrl: audit.config.databaseUrl });
  // Awaited here, before `await using` closes the writer's client.
  const result = await writer.log.append(Array.from({ length: n }, () => requestEvent()));
  return result;
};

describe('the running service', () => {
  test('checkpoints the head every interval, signed with AUDIT_SIGNING_KEY', async () => {
    t = await startTestAudit({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '50' } });
    const { head } = await append(t, 3);
    const store = new CheckpointStore(t.db);
    const checkpoint = await eventually(async () => (await store.newest())?.seq === 3 && store.newest(), {
      what: 'a checkpoint at seq 3',
    });
    expect(checkpoint).toMatchObject({
      seq: 3,
      hash: head.hash,
      keyId: signingKeyFromSeed(t.config.signingKey).keyId,
    });
    expect(
      verifyCheckpoint(checkpoint as NonNullable<typeof checkpoint>, verifyKeys(t.config.signingKey, [])),
    ).toBe('valid');
  }, 60_000);

  test('close() writes the last checkpoint', async () => {
    t = await startTestAudit({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '3600000' } });
    const { head } = await append(t, 2);
    const store = new CheckpointStore(t.db);
    expect(await store.newest()).toBeNull();
    await t.audit.close();
    expect(await store.newest()).toMatchObject({ seq: 2, hash: head.hash });
  }, 60_000);
});

describe('the checkpointer', () => {
  test('writes nothing on an empty log, and nothing new while the head stays', async () => {
    await using database = await startAuditDatabase();
    await using writer = openAuditLog({ databaseUrl: database.serviceUrl });
    const checkpoints = new CheckpointStore(database.owner);
    const checkpointer = startCheckpointer({
      head: () => writer.log.head(),
      checkpoints,
      key: signingKeyFromSeed(newSigningKey()),
      intervalMs: 3_600_000,
      logger: createLogger({ service: 'audit', level: 'silent' }),
    });
    expect(await checkpointer.runOnce()).toBeNull();
    await writer.log.append([requestEvent()]);
    expect(await checkpointer.runOnce()).toMatchObject({ seq: 1 });
    expect(await checkpointer.runOnce()).toBeNull();
    await writer.log.append([requestEvent(), requestEvent()]);
    expect(await checkpointer.runOnce()).toMatchObject({ seq: 3 });
    await checkpointer.close();
    expect((await checkpoints.from(0)).map((checkpoint) => checkpoint.seq)).toEqual([1, 3]);
  }, 60_000);
});
