/**
 * The request/reply part of the bus contract: replies, timeouts, no responders, errors crossing
 * the wire, and a graceful close.
 */
import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import type { BusContractContext } from './bus-test-helpers.ts';
import { deferred, rejectionOf } from './bus-test-helpers.ts';

export function describeRequestContract(ctx: BusContractContext): void {
  describe('request/reply', () => {
    test('the reply comes back with the request headers seen by the handler and no shared objects', async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle<{ n: number; tags: string[] }>(`${subject}.echo`, (msg) => {
        msg.data.tags.push('mutated by handler');
        return { doubled: msg.data.n * 2, requestId: msg.headers['X-Request-Id'], subject: msg.subject };
      });
      const payload = { n: 21, tags: ['a'] };
      const reply = await bus.request(`${subject}.echo`, payload, {
        timeoutMs: 2_000,
        headers: { 'X-Request-Id': 'req-1' },
      });
      expect(reply).toEqual({ doubled: 42, requestId: 'req-1', subject: `${subject}.echo` });
      expect(payload.tags).toEqual(['a']);
    });

    test('a handler that does not answer in time gives UPSTREAM_TIMEOUT after about the timeout', async () => {
      const { bus, peer, subject } = ctx;
      const release = deferred();
      await peer.handle(subject, async () => {
        await release.promise;
        return 'too late';
      });
      const started = performance.now();
      const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 200 }));
      const elapsed = performance.now() - started;
      release.resolve();
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.status).toBe(504);
      expect(error.message).toContain(subject);
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(1_500);
    });

    test('a subject nobody handles fails at once with SERVICE_UNAVAILABLE', async () => {
      const { bus, subject } = ctx;
      const started = performance.now();
      const error = await rejectionOf(bus.request(`${subject}.nobody`, {}, { timeoutMs: 5_000 }));
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
      expect(error.status).toBe(503);
      expect(error.message).toContain(`${subject}.nobody`);
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    test("a handler's AppError arrives with its code, status, message, hint and headers", async () => {
      const { bus, peer, subject } = ctx;
      const message = 'Daily limit of 10 “requests” reached.\n  Try tomorrow. ';
      await peer.handle(subject, () => {
        throw new AppError('USAGE_LIMIT_EXCEEDED', message, {
          hint: 'Ask the owner to raise the limit; 100% safe.',
          headers: { 'Retry-After': '3600' },
        });
      });
      const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 2_000 }));
      expect(error.code).toBe('USAGE_LIMIT_EXCEEDED');
      expect(error.status).toBe(429);
      expect(error.message).toBe(message);
      expect(error.hint).toBe('Ask the owner to raise the limit; 100% safe.');
      expect(error.headers).toEqual({ 'Retry-After': '3600' });
      expect(error.expose).toBe(true);
    });

    test('an unexpected handler failure arrives as a masked INTERNAL_ERROR', async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle(subject, () => {
        throw new Error('connection string postgres://admin:secret@db');
      });
      const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 2_000 }));
      expect(error.code).toBe('INTERNAL_ERROR');
      expect(error.status).toBe(500);
      expect(error.expose).toBe(false);
      expect(error.message).not.toContain('secret');
    });

    test('close() lets a request already being handled finish and answer', async () => {
      const { bus, peer, subject } = ctx;
      const release = deferred();
      const started = deferred();
      let finished = false;
      await peer.handle(subject, async () => {
        started.resolve();
        await release.promise;
        finished = true;
        return 'answered';
      });
      const reply = bus.request(subject, {}, { timeoutMs: 5_000 });
      await started.promise;
      const closing = peer.close();
      setImmediate(() => release.resolve());
      await closing;
      expect(finished).toBe(true);
      await expect(reply).resolves.toBe('answered');
      expect(peer.isReady()).toBe(false);
    });
  });
}
