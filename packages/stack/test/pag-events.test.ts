/**
 * A decision taken with `pnpm pag` publishes the same events as the same decision on the dashboard,
 * on the bus the running stack uses: `handshake approve|deny` → events.auth.handshake.decided,
 * `device approve` → events.auth.device.approved, `device revoke` → events.auth.device.revoked.
 * The stack runs on a real nats-server here, so the test hears its bus from outside.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceEvent, DeviceRegistered, HandshakeDecidedEvent } from '@pag/contracts';
import { EventSubjects } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';
import { createBus, createLogger } from '@pag/kit';
import type { NatsServer } from '@pag/kit/testing';
import { startNatsServer } from '@pag/kit/testing';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from './support/pag.ts';

let nats: NatsServer;
let stack: StackProcess;
let bus: Bus;
const heard: { subject: string; data: unknown }[] = [];
const waiting: { matches: (subject: string, data: unknown) => boolean; resolve: (data: unknown) => void }[] =
  [];
const subscriptions: Subscription[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  stack = await startStackProcess({ env: { NATS_URL: nats.url } });
  bus = await createBus({
    natsUrl: nats.url,
    name: 'pag-events-test',
    logger: createLogger({ service: 'test', level: 'warn' }),
  });
  for (const subject of [
    EventSubjects.handshakeDecided,
    EventSubjects.deviceApproved,
    EventSubjects.deviceRevoked,
  ])
    subscriptions.push(
      await bus.subscribe<unknown>(subject, (message) => {
        heard.push({ subject, data: message.data });
        for (const waiter of waiting.filter((entry) => entry.matches(subject, message.data)))
          waiter.resolve(message.data);
      }),
    );
}, 60_000);
afterAll(async () => {
  for (const subscription of subscriptions) await subscription.close();
  await bus?.close();
  await stack?.stop();
  await nats?.stop();
});

const pag = pagCommand(() => stack.dataDir);

/** The first event on `subject` whose data has `field` = `value`, heard already or still to come. */
function eventOf<T>(subject: string, field: string, value: string): Promise<T> {
  const matches = (heardSubject: string, data: unknown) =>
    heardSubject === subject && (data as Record<string, unknown> | null)?.[field] === value;
  const already = heard.find((entry) => matches(entry.subject, entry.data));
  if (already !== undefined) return Promise.resolve(already.data as T);
  return new Promise((resolve) => waiting.push({ matches, resolve: (data) => resolve(data as T) }));
}

const ALICE = 'alice@example.test';

async function requestAccess(agentId: string): Promise<string> {
  const response = await fetch(`${stack.url}/api/v1/handshakes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agentId, requestedScopes: ['read'], message: 'events test' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { handshakeId: string }).handshakeId;
}

describe('pag decisions publish events on the stack’s bus', () => {
  let accountId: string;
  beforeAll(async () => {
    expect((await pag('owner', 'create', '--email', ALICE, '--password', 'a long enough pass')).code).toBe(0);
  });

  test('handshake approve and deny: events.auth.handshake.decided', async () => {
    const approvedId = await requestAccess('events-agent-1');
    const deniedId = await requestAccess('events-agent-2');
    expect((await pag('handshake', 'approve', '--owner', ALICE, '--id', approvedId)).code).toBe(0);
    expect((await pag('handshake', 'deny', '--owner', ALICE, '--id', deniedId)).code).toBe(0);
    const approved = await eventOf<HandshakeDecidedEvent>(
      EventSubjects.handshakeDecided,
      'handshakeId',
      approvedId,
    );
    expect(approved).toMatchObject({ handshakeId: approvedId, status: 'approved', at: expect.any(String) });
    accountId = approved.accountId;
    const denied = await eventOf<HandshakeDecidedEvent>(
      EventSubjects.handshakeDecided,
      'handshakeId',
      deniedId,
    );
    expect(denied).toMatchObject({ accountId, handshakeId: deniedId, status: 'denied' });
  });

  test('device approve and revoke: events.auth.device.approved, events.auth.device.revoked', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const response = await fetch(`${stack.url}/api/v1/agentic/asc/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: publicKey.export({ format: 'jwk' }), deviceName: 'events device' }),
    });
    expect(response.status).toBe(201);
    const device = (await response.json()) as DeviceRegistered;
    expect((await pag('device', 'approve', '--owner', ALICE, '--user-code', device.userCode)).code).toBe(0);
    expect(
      await eventOf<DeviceEvent>(EventSubjects.deviceApproved, 'deviceId', device.deviceId),
    ).toMatchObject({
      accountId,
      deviceId: device.deviceId,
    });
    expect((await pag('device', 'revoke', '--owner', ALICE, '--id', device.deviceId)).code).toBe(0);
    expect(
      await eventOf<DeviceEvent>(EventSubjects.deviceRevoked, 'deviceId', device.deviceId),
    ).toMatchObject({
      accountId,
      deviceId: device.deviceId,
    });
  });
});
