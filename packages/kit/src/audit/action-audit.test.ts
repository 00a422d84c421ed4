/**
 * The action event helper: the id and time are filled in, a field the log would refuse fails at
 * the emitter, and the event lands on its source's subject of the AUDIT stream once per event id.
 */
import { describe, expect, test } from '@jest/globals';
import { AuditStream } from '@pag/contracts';
import { Collector } from '../bus/bus-test-helpers.ts';
import { MemoryBus } from '../bus/memory-bus.ts';
import type { DurableMessage } from '../bus/types.ts';
import type { ActionAuditInput } from './action-audit.ts';
import { actionAuditEvent, publishAuditEvent } from './action-audit.ts';

const input: ActionAuditInput = {
  requestId: 'req-1',
  accountId: 'acc-1',
  clientId: 'client-1',
  agentId: 'ag-1',
  actor: { type: 'agent', id: 'ag-1' },
  action: 'proxy.call',
  target: 'github',
  decision: 'allowed',
  reason: null,
  status: 200,
  latencyMs: 12.5,
  detail: { method: 'GET', host: 'api.github.com', path: '/user' },
};

describe('actionAuditEvent', () => {
  test('fills in the kind, source, a fresh event id and the time', () => {
    const before = Date.now();
    const first = actionAuditEvent('proxy', input);
    const second = actionAuditEvent('proxy', input);
    expect(first).toMatchObject({ kind: 'action', source: 'proxy', ...input });
    expect(first.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.eventId).not.toBe(first.eventId);
    expect(Date.parse(first.time)).toBeGreaterThanOrEqual(before - 1);
    expect(actionAuditEvent('auth', { ...input, time: new Date(0) }).time).toBe('1970-01-01T00:00:00.000Z');
  });

  test('refuses what the log would refuse, at the emitter', () => {
    expect(() => actionAuditEvent('proxy', { ...input, action: 'ProxyCall' })).toThrow();
    expect(() => actionAuditEvent('proxy', { ...input, detail: { body: 'x'.repeat(501) } })).toThrow();
  });
});

describe('publishAuditEvent', () => {
  test('stores the event on audit.events.<source> once per event id', async () => {
    const bus = new MemoryBus();
    await bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
    const seen = new Collector<DurableMessage>();
    const consumer = await bus.consume(AuditStream.name, 'test', async (msg) => seen.push(msg));
    const event = actionAuditEvent('auth', { ...input, actor: { type: 'owner', id: 'acc-1' } });
    const first = await publishAuditEvent(bus, event);
    const again = await publishAuditEvent(bus, event);
    expect([first.duplicate, again.duplicate]).toEqual([false, true]);
    const [message] = await seen.atLeast(1);
    expect(message?.subject).toBe('audit.events.auth');
    expect(message?.msgId).toBe(event.eventId);
    expect(message?.data).toEqual(event);
    await consumer.close();
    await bus.close();
  });

  test('refuses an event that does not match the contract (e.g. one edited while it waited)', async () => {
    const bus = new MemoryBus();
    await bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
    const event = { ...actionAuditEvent('auth', input), decision: 'maybe' };
    await expect(publishAuditEvent(bus, event as never)).rejects.toThrow();
    await bus.close();
  });
});
