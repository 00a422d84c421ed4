/**
 * The live directory on the in-memory bus (the NATS permissions of the same subjects are checked
 * on a real nats-server in bus/nats-permissions.test.ts): a service is up from its instance's
 * first word, down at its goodbye, and down once PRESENCE_MISSED_BEATS of its intervals passed in
 * silence; a directory started after the services knows them at once.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { PresenceAnnouncement } from '@pag/contracts';
import { PRESENCE_MISSED_BEATS, presenceSubject } from '@pag/contracts';
import { MemoryBus } from '../bus/memory-bus.ts';
import { PresenceAnnouncer } from './presence-announcer.ts';
import { ServiceDirectory } from './service-directory.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp() {
  let now = 1_000_000;
  const bus = new MemoryBus();
  closers.push(() => bus.close());
  const directory = await ServiceDirectory.start({ bus, now: () => now });
  closers.push(() => directory.close());
  return { bus, directory, advance: (ms: number) => (now += ms) };
}

function announcement(overrides: Partial<PresenceAnnouncement>): PresenceAnnouncement {
  return { service: 'brain', instanceId: 'brain-1', state: 'up', intervalMs: 1_000, ...overrides };
}

describe('ServiceDirectory', () => {
  test('a service is up from its first announcement and down at its goodbye, each a new version', async () => {
    const { bus, directory } = await setUp();
    const empty = directory.snapshot();
    expect(empty.running.size).toBe(0);

    const brain = await PresenceAnnouncer.start({ bus, service: 'brain' });
    const up = directory.snapshot();
    expect([...up.running]).toEqual(['brain']);
    expect(up.version).toBeGreaterThan(empty.version);
    expect(directory.isRunning('brain')).toBe(true);
    expect(directory.isRunning('trigger')).toBe(false);
    // Nothing changed: the same snapshot, the same version (what is cached per version stays).
    expect(directory.snapshot()).toBe(up);

    await brain.close();
    const down = directory.snapshot();
    expect(down.running.size).toBe(0);
    expect(down.version).toBeGreaterThan(up.version);
  });

  test(`an instance silent for ${PRESENCE_MISSED_BEATS} of its intervals expires; a beat before that keeps it`, async () => {
    const { bus, directory, advance } = await setUp();
    await bus.publish(presenceSubject('brain'), announcement({ intervalMs: 1_000 }));
    advance(PRESENCE_MISSED_BEATS * 1_000 - 1);
    expect(directory.isRunning('brain')).toBe(true);
    await bus.publish(presenceSubject('brain'), announcement({ intervalMs: 1_000 }));
    advance(PRESENCE_MISSED_BEATS * 1_000 - 1);
    expect(directory.isRunning('brain')).toBe(true);
    const before = directory.snapshot().version;
    advance(1);
    expect(directory.isRunning('brain')).toBe(false);
    expect(directory.snapshot().version).toBeGreaterThan(before);
  });

  test('a service stays up while one of its instances is heard, whatever the others do', async () => {
    const { bus, directory, advance } = await setUp();
    await bus.publish(presenceSubject('trigger'), announcement({ service: 'trigger', instanceId: 't-1' }));
    await bus.publish(
      presenceSubject('trigger'),
      announcement({ service: 'trigger', instanceId: 't-2', intervalMs: 10_000 }),
    );
    await bus.publish(
      presenceSubject('trigger'),
      announcement({ service: 'trigger', instanceId: 't-1', state: 'down' }),
    );
    expect(directory.isRunning('trigger')).toBe(true);
    advance(PRESENCE_MISSED_BEATS * 1_000);
    expect(directory.isRunning('trigger')).toBe(true);
    advance(PRESENCE_MISSED_BEATS * 10_000);
    expect(directory.isRunning('trigger')).toBe(false);
  });

  test('an announcement that breaks its schema is ignored', async () => {
    const { bus, directory } = await setUp();
    await bus.publish(presenceSubject('brain'), { service: 'brain', state: 'up' });
    await bus.publish(presenceSubject('brain'), announcement({ service: 'nobody' as never }));
    expect(directory.snapshot().running.size).toBe(0);
  });

  test('a directory started after the services asks, and knows them before its first read', async () => {
    const bus = new MemoryBus();
    closers.push(() => bus.close());
    for (const service of ['auth', 'proxy'] as const) {
      const announcer = await PresenceAnnouncer.start({ bus, service, intervalMs: 60_000 });
      closers.push(() => announcer.close());
    }
    const directory = await ServiceDirectory.start({ bus });
    closers.push(() => directory.close());
    expect([...directory.snapshot().running]).toEqual(['auth', 'proxy']);
  });
});
