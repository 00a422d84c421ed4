/**
 * The started service (startAudit, as its own role): it consumes the AUDIT stream on the bus it is
 * given, and close() signs the tail and gives back every database connection.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auditSubject } from '@pag/contracts';
import { eventually, openConnections, openConnectionsOnceClosed } from '@pag/kit/testing';
import { CheckpointStore } from '../src/store/checkpoint-store.ts';
import { requestEvent } from './support/events.ts';
import type { TestAudit } from './support/start-test-audit.ts';
import { startTestAudit } from './support/start-test-audit.ts';

let t: TestAudit;
beforeAll(async () => {
  t = await startTestAudit({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '3600000' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('service lifecycle', () => {
  test('what the gateway publishes on AUDIT becomes a row', async () => {
    const event = requestEvent();
    await t.bus.publishDurable(auditSubject('gateway'), event, { msgId: event.eventId });
    const row = await eventually(
      async () => (await t.db.auditRow.findUnique({ where: { eventId: event.eventId } })) ?? false,
      {
        what: 'the row of the published event',
      },
    );
    expect(row.seq).toBe(1n);
  });

  test('close() checkpoints the head and releases its database connections', async () => {
    expect(await openConnections(t.db, 'pag-audit')).toBeGreaterThan(0);
    await t.audit.close();
    expect(await new CheckpointStore(t.db).newest()).toMatchObject({ seq: 1 });
    // The test's own client connects as pag-audit too; it holds one connection, the one asking.
    expect(await openConnectionsOnceClosed(t.db, 'pag-audit')).toBe(0);
    await t.audit.close();
  });
});
