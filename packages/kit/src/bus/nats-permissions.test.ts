/**
 * The deployment's nats-server configuration (deploy/nats/nats-server.conf, generated from the
 * contracts' SubjectTable) on a real nats-server: each service signs in as its own user, a request
 * that names a caller in `pag-*` headers is accepted from the gateway's user only, a streamed reply
 * and its cancel pass, and the audit stream works with the gateway's and the audit service's grants.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { NatsUser } from '@pag/contracts';
import {
  AuditStream,
  BrainSubjects,
  MessageHeaders,
  NATS_USERS,
  PresenceSubjects,
  presenceSubject,
  QueueGroups,
} from '@pag/contracts';
import { PresenceAnnouncer } from '../discovery/presence-announcer.ts';
import { ServiceDirectory } from '../discovery/service-directory.ts';
import { eventually } from '../testing/eventually.ts';
import type { NatsServer } from '../testing/nats-server.ts';
import { startNatsServer } from '../testing/nats-server.ts';
import { Collector } from './bus-test-helpers.ts';
import { NatsBus } from './nats-bus.ts';

const CONFIG_FILE = fileURLToPath(new URL('../../../../deploy/nats/nats-server.conf', import.meta.url));
const passwords = Object.fromEntries(NATS_USERS.map((user) => [user, randomBytes(24).toString('base64url')]));

let server: NatsServer;
const buses: NatsBus[] = [];

async function signIn(user: NatsUser, password = passwords[user] ?? ''): Promise<NatsBus> {
  const bus = await NatsBus.connect({
    url: server.url,
    name: user,
    credentials: { kind: 'password', user, password },
  });
  buses.push(bus);
  return bus;
}

beforeAll(async () => {
  server = await startNatsServer({
    configFile: CONFIG_FILE,
    // nats-server reads a variable as a configuration value: a password is quoted.
    serverEnv: Object.fromEntries(
      NATS_USERS.map((user) => [`NATS_${user.toUpperCase()}_PASSWORD`, JSON.stringify(passwords[user])]),
    ),
  });
});

afterAll(async () => {
  for (const bus of buses) await bus.close();
  await server?.stop();
});

describe('nats-server.conf', () => {
  test('a wrong password or no user is refused at connect', async () => {
    await expect(signIn('gateway', 'not-the-password')).rejects.toThrow(/Cannot connect to NATS/);
    await expect(NatsBus.connect({ url: server.url, name: 'anonymous' })).rejects.toThrow(
      /Cannot connect to NATS/,
    );
  });

  test("a request with a caller is the gateway's alone: another service's forgery never reaches the handler", async () => {
    const brain = await signIn('brain');
    const seen = new Collector<string | undefined>();
    await brain.handle(
      BrainSubjects.memoryCreate,
      (message) => {
        seen.push(message.headers[MessageHeaders.accountId]);
        return { stored: true };
      },
      { queue: QueueGroups.brain },
    );

    // Nor may another service answer in the brain's place: its subscription is refused.
    const proxy = await signIn('proxy');
    const impostor = new Collector<string>();
    await proxy.handle(BrainSubjects.memoryCreate, () => impostor.push('answered'), {
      queue: QueueGroups.brain,
    });

    const forged = proxy.request(
      BrainSubjects.memoryCreate,
      { content: 'forged' },
      { timeoutMs: 2_000, headers: { [MessageHeaders.accountId]: 'victim-account' } },
    );
    await expect(forged).rejects.toThrow(/permission/i);

    const gateway = await signIn('gateway');
    for (let i = 0; i < 20; i += 1) {
      await expect(
        gateway.request(
          BrainSubjects.memoryCreate,
          { content: 'real' },
          { timeoutMs: 2_000, headers: { [MessageHeaders.accountId]: 'owner-account' } },
        ),
      ).resolves.toEqual({ stored: true });
    }
    expect(seen.items).toEqual(Array(20).fill('owner-account'));
    expect(impostor.items).toEqual([]);
  });

  test("a streamed reply crosses the permissions: the brain's many parts reach the gateway, whose cancel reaches the brain", async () => {
    const brain = await signIn('brain');
    const cancelled = new Collector<boolean>();
    await brain.handle<{ events: number; wait: boolean }>(
      BrainSubjects.chatSend,
      async (message) => {
        const stream = message.stream!;
        for (let i = 0; i < message.data.events; i += 1) await stream.send('delta', { i });
        if (!message.data.wait) return { done: true };
        await new Promise((resolve) => stream.signal.addEventListener('abort', resolve, { once: true }));
        cancelled.push(stream.signal.aborted);
        return { done: false };
      },
      { queue: QueueGroups.brain },
    );
    const gateway = await signIn('gateway');

    const parts: unknown[] = [];
    for await (const part of gateway.requestStream(
      BrainSubjects.chatSend,
      { events: 200, wait: false },
      { timeoutMs: 2_000 },
    )) {
      parts.push(part.kind === 'event' ? part.data : part);
    }
    expect(parts).toEqual([
      ...Array.from({ length: 200 }, (_, i) => ({ i })),
      { kind: 'reply', data: { done: true } },
    ]);

    for await (const part of gateway.requestStream(
      BrainSubjects.chatSend,
      { events: 1, wait: true },
      { timeoutMs: 2_000 },
    )) {
      expect(part).toEqual({ kind: 'event', event: 'delta', data: { i: 0 } });
      break;
    }
    await expect(cancelled.atLeast(1)).resolves.toEqual([true]);
  });

  test("every service announces its presence to the gateway's directory, and none in another's name", async () => {
    const gateway = await signIn('gateway');
    const directory = await ServiceDirectory.start({ bus: gateway });
    const announcers: PresenceAnnouncer[] = [];
    try {
      for (const user of NATS_USERS)
        announcers.push(await PresenceAnnouncer.start({ bus: await signIn(user), service: user }));
      await eventually(() => expect([...directory.snapshot().running]).toEqual([...NATS_USERS]), {
        what: 'every service heard',
      });

      // The brain may not say the auth service stopped: nats-server drops the publish. Its own
      // word after it arrives in order, so once that is heard, the forgery would have been too.
      const heard = new Collector<string>();
      await gateway.subscribe(PresenceSubjects.announcedAll, (message) => heard.push(message.subject));
      const brain = await signIn('brain');
      const auth = announcers[NATS_USERS.indexOf('auth')] as PresenceAnnouncer;
      const forged = { service: 'auth', instanceId: auth.instanceId, state: 'down', intervalMs: 5_000 };
      await brain.publish(presenceSubject('auth'), forged).catch(() => {});
      await brain.publish(presenceSubject('brain'), { ...forged, service: 'brain', instanceId: 'marker' });
      await heard.atLeast(1);
      expect(heard.items).toEqual([presenceSubject('brain')]);
      expect(directory.isRunning('auth')).toBe(true);
    } finally {
      for (const announcer of announcers) await announcer.close();
      await directory.close();
    }
  });

  test('either the audit service or the gateway declares the audit stream; the gateway publishes, the audit service reads it', async () => {
    // In a deployment the audit service may start before any gateway: it declares the stream too.
    const audit = await signIn('audit');
    await audit.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
    const gateway = await signIn('gateway');
    await gateway.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
    const ack = await gateway.publishDurable('audit.events.gateway', { n: 1 }, { msgId: 'event-1' });
    expect(ack.stream).toBe(AuditStream.name);

    const brain = await signIn('brain');
    await expect(
      brain.publishDurable('audit.events.gateway', { n: 2 }, { msgId: 'forged-1' }),
    ).rejects.toThrow();

    const received = new Collector<unknown>();
    await audit.consumeBatch(
      AuditStream.name,
      AuditStream.consumer,
      async (messages) => {
        for (const message of messages) received.push(message.data);
      },
      { maxBatch: 100 },
    );
    await received.atLeast(1);
    expect(received.items).toEqual([{ n: 1 }]);
  });
});
