/**
 * testkit's startService: any service from its definition, on its own PostgreSQL (its schema
 * migrated) and the bus the test picks; `await using` stops everything it started, by pid.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { BrainSubjects, MessageHeaders } from '@pag/contracts';
import { startService } from '@pag/testkit';
import { isProcessAlive } from '../packages/kit/src/mod.ts';
import { brainService } from '../services/brain/src/mod.ts';

describe('startService', () => {
  test('on a real nats-server: the service answers, its tables exist, dispose stops every process', async () => {
    let pids: number[];
    {
      await using started = await startService(brainService, {
        bus: 'nats',
        env: { AUTH_TIMEOUT_MS: '300' },
      });
      expect(started.config.natsUrl).toBe(started.nats?.url);
      expect(started.config.databaseUrl).toBe(started.postgres.url);
      // Asked as the gateway asks: no account in the headers is refused by the service itself.
      await expect(
        started.bus.request(
          BrainSubjects.contextGet,
          { params: {}, query: {}, body: null },
          {
            timeoutMs: 5_000,
            headers: { [MessageHeaders.requestId]: 'req-1', [MessageHeaders.scopes]: 'full' },
          },
        ),
      ).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
      // The brain's tables exist: a fresh account's personas are read from them (its default made first).
      await expect(
        started.bus.request(
          BrainSubjects.personasList,
          { params: {}, query: {}, body: null },
          {
            timeoutMs: 5_000,
            headers: {
              [MessageHeaders.requestId]: 'req-2',
              [MessageHeaders.scopes]: 'full',
              [MessageHeaders.accountId]: randomUUID(),
            },
          },
        ),
      ).resolves.toBeDefined();
      pids = [started.postgres.pid, started.nats?.pid ?? -1];
      expect(pids.every(isProcessAlive)).toBe(true);
    }
    expect(pids.some(isProcessAlive)).toBe(false);
  }, 60_000);
});
