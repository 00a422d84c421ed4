/**
 * startBrain and close(): the brain answers its subjects once started, not brain.chat.send (no
 * LLM provider yet: nothing answers, so the gateway says the brain cannot), and close() stops
 * answering and gives back every database connection it held.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DispatchRequest } from '@pag/contracts';
import { BrainSubjects } from '@pag/contracts';
import { createPrismaClient } from '@pag/kit';
import { openConnections, openConnectionsOnceClosed } from '@pag/kit/testing';
import type { StartedService } from '@pag/testkit';
import { startService } from '@pag/testkit';
import type { BrainConfig } from '../src/config.ts';
import { brainService } from '../src/definition.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { RunningBrain } from '../src/service.ts';
import { FakeAuth } from './support/fake-auth.ts';
import type { Caller } from './support/start-test-brain.ts';
import { callerHeaders } from './support/start-test-brain.ts';

// The brain from its definition (testkit's startService), on the in-memory bus and on a real nats-server.
describe.each(['memory', 'nats'] as const)('on the %s bus', (busKind) => {
  let started: StartedService<BrainConfig, RunningBrain>;
  let t: {
    brain: RunningBrain;
    auth: FakeAuth;
    db: PrismaClient;
    ask(subject: string, caller: Caller, request?: Partial<DispatchRequest>): Promise<unknown>;
  };
  beforeAll(async () => {
    started = await startService(brainService, { bus: busKind, env: { AUTH_TIMEOUT_MS: '300' } });
    const auth = await FakeAuth.start(await started.connect('auth'));
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: started.postgres.url,
      schema: brainService.database.schema,
    });
    t = {
      brain: started.service,
      auth,
      db,
      ask: (subject, caller, request = {}) =>
        started.bus.request(
          subject,
          { params: {}, query: {}, body: null, ...request },
          { timeoutMs: 5_000, headers: callerHeaders(caller) },
        ),
    };
  }, 60_000);
  afterAll(async () => {
    await t?.auth.close();
    await t?.db.$disconnect();
    await started?.close();
  });

  describe('service lifecycle', () => {
    test('brain.chat.send has no responder: SERVICE_UNAVAILABLE, never a made-up reply', async () => {
      const accountId = t.auth.addAccount('chat@example.com');
      await expect(
        t.ask(BrainSubjects.chatSend, { accountId }, { body: { message: 'hello' } }),
      ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    });

    test('close() stops answering and releases its database connections', async () => {
      const accountId = t.auth.addAccount('close@example.com');
      await t.ask(BrainSubjects.memoryCreate, { accountId }, { body: { content: 'before close' } });
      // The test's own client connects as pag-brain too; it holds one connection, the one asking.
      expect(await openConnections(t.db, 'pag-brain')).toBeGreaterThan(0);
      await t.brain.close();
      await expect(t.ask(BrainSubjects.contextGet, { accountId })).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      expect(await openConnectionsOnceClosed(t.db, 'pag-brain')).toBe(0);
      await t.brain.close();
    });
  });
});
