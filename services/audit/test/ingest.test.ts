/**
 * The ingest on both buses, on a real PostgreSQL as the service's role: events published on the
 * AUDIT stream land as rows, in batches, each once; a batch whose COMMIT fails stays
 * unacknowledged and lands, once, on redelivery; a message that is not an audit event is logged,
 * counted, acknowledged and not stored, without holding up the events beside it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AuditEvent } from '@pag/contracts';
import { auditSubject } from '@pag/contracts';
import type { Subscription } from '@pag/kit';
import { createLogger, createMetrics } from '@pag/kit';
import type { TestBusKind } from '@pag/kit/testing';
import { eventually } from '@pag/kit/testing';
import type { AuditMetrics } from '../src/audit-metrics.ts';
import { auditMetrics } from '../src/audit-metrics.ts';
import { startIngest } from '../src/ingest/audit-ingest.ts';
import type { AuditLog } from '../src/store/audit-log.ts';
import { APPEND_LOCK_KEY } from '../src/store/chain-head.ts';
import type { OpenAuditLog } from '../src/store/open-audit-log.ts';
import { openAuditLog } from '../src/store/open-audit-log.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { chainProblem } from './support/chain-check.ts';
import { actionEvent, requestEvent } from './support/events.ts';
import type { IngestBuses } from './support/ingest-buses.ts';
import { startIngestBuses } from './support/ingest-buses.ts';

const ACK_WAIT_MS = 200;

describe.each(['memory', 'nats'] as TestBusKind[])('ingest on the %s bus', (kind) => {
  let database: AuditDatabase;
  let buses: IngestBuses;
  let writer: OpenAuditLog;
  let metrics: AuditMetrics;
  let ingest: Subscription;
  const logged: { level: number; msg: string; streamSeq?: number; subject?: string; problem?: string }[] = [];
  /** Settles each time an append fails (the real one, observed). */
  const failures: ((error: unknown) => void)[] = [];

  beforeAll(async () => {
    database = await startAuditDatabase();
    buses = await startIngestBuses(kind);
    writer = openAuditLog({ databaseUrl: database.serviceUrl });
    metrics = auditMetrics(createMetrics({ defaultMetrics: false }));
    const log: Pick<AuditLog, 'appendChecked'> = {
      appendChecked: (events) =>
        writer.log.appendChecked(events).catch((error: unknown) => {
          for (const failed of failures.splice(0)) failed(error);
          throw error;
        }),
    };
    const logger = createLogger({
      service: 'audit',
      level: 'error',
      destination: { write: (line: string) => logged.push(JSON.parse(line)) },
    });
    ingest = await startIngest({
      bus: buses.service,
      log,
      metrics,
      logger,
      maxBatch: 50,
      ackWaitMs: ACK_WAIT_MS,
    });
  }, 60_000);
  afterAll(async () => {
    await ingest?.close();
    await buses?.close();
    await writer?.close();
    await database?.close();
  });

  const publish = (event: AuditEvent | object, msgId = (event as AuditEvent).eventId) =>
    buses.publisher.publishDurable(auditSubject('gateway'), event, { msgId, timeoutMs: 10_000 });

  /** Waits for `n` rows in all: at once where a publish is confirmed by the commit. */
  const rowsReach = async (n: number) => {
    if (buses.confirmed) return database.records();
    return eventually(
      async () => {
        const rows = await database.records();
        return rows.length >= n && rows;
      },
      { what: `${n} audit rows`, timeoutMs: 20_000 },
    );
  };

  test('published events land as rows, in batches, each once, in one chain', async () => {
    const events = Array.from({ length: 200 }, (_, index) =>
      index % 3 === 0 ? actionEvent() : requestEvent(),
    );
    // The append lock held elsewhere while everything is published, so that the batches do not
    // depend on how fast the machine is: once it is released, every message is waiting.
    const held = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const holder = database.owner.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`;
        held.resolve();
        await release.promise;
      },
      { timeout: 30_000 },
    );
    await held.promise;
    const published = Promise.all([
      ...events.map((event) => publish(event)),
      // Published again (a publisher's retry, under another msgId): stored once, on both buses.
      ...events.slice(0, 10).map((event) => publish(event, `${event.eventId}-again`)),
    ]);
    // NATS: stored in the stream once acknowledged. Memory: stored at the call; the publish is
    // confirmed only after the commit, which waits for the lock.
    if (!buses.confirmed) await published;
    release.resolve();
    await holder;
    await published;
    const rows = await rowsReach(200);
    expect(rows.map((row) => row.eventId).sort()).toEqual(events.map((event) => event.eventId).sort());
    expect(chainProblem(rows)).toBeNull();
    // 210 messages in batches of at most 50: five, and the one or two taken before all were there.
    const batches = (await metrics.batchSize.get()).values.find(
      (value) => value.metricName === 'audit_batch_size_count',
    );
    expect(batches?.value).toBeLessThanOrEqual(8);
    expect((await metrics.committed.get()).values[0]?.value).toBe(200);
  }, 60_000);

  test('a batch whose COMMIT fails is not acknowledged, and lands once on redelivery', async () => {
    const before = (await database.records()).length;
    // A check PostgreSQL runs at COMMIT (a deferred constraint trigger), refusing for now.
    await database.owner.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION public.refuse_commit() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'commit refused by the test'; END; $$`);
    await database.owner.$executeRawUnsafe(`CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT ON audit.records
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.refuse_commit()`);
    const failed = new Promise((resolve) => failures.push(resolve));
    const events = Array.from({ length: 20 }, () => requestEvent());
    const published = Promise.all(events.map((event) => publish(event)));
    expect(String(await failed)).toMatch(/commit refused by the test/);
    expect(await database.records()).toHaveLength(before);
    await database.owner.$executeRawUnsafe('DROP TRIGGER refuse_commit ON audit.records');
    await published;
    const rows = await rowsReach(before + 20);
    expect(rows).toHaveLength(before + 20);
    expect(
      rows
        .slice(before)
        .map((row) => row.eventId)
        .sort(),
    ).toEqual(events.map((event) => event.eventId).sort());
    expect(chainProblem(rows)).toBeNull();
  }, 60_000);

  test('a message that is not an audit event: logged with its place, counted, acknowledged, not stored', async () => {
    const before = (await database.records()).length;
    const good = [requestEvent(), requestEvent()];
    const bad = { ...requestEvent(), status: 'teapot' };
    const acks = await Promise.all([
      publish(good[0] as AuditEvent),
      publish(bad),
      publish(good[1] as AuditEvent),
    ]);
    const rows = await rowsReach(before + 2);
    expect(rows.slice(before).map((row) => row.eventId)).toEqual(good.map((event) => event.eventId));
    expect((await metrics.rejected.get()).values[0]?.value).toBe(1);
    const line = await eventually(() => logged.find((entry) => entry.streamSeq === acks[1]?.seq) ?? false, {
      what: 'the rejected event logged',
    });
    expect(line).toMatchObject({
      level: 50,
      subject: auditSubject('gateway'),
      problem: expect.stringMatching(/status/),
    });
  }, 60_000);
});
