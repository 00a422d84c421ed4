/**
 * The streamed request/reply part of the bus contract: events in order then the reply, a handler's
 * failure mid-stream, the requester's cancel reaching the handler, no responders, and the
 * first-event and idle timeouts (which also stop the handler).
 */
import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import type { BusContractContext } from './bus-test-helpers.ts';
import { Collector, deferred, rejectionOf } from './bus-test-helpers.ts';
import type { ReplyStream, StreamPart } from './types.ts';

/** Reads a stream to its end: the parts read and the failure that ended it, if any. */
async function readAll(
  stream: AsyncIterable<StreamPart>,
): Promise<{ parts: StreamPart[]; error?: AppError }> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { parts, error };
  }
}

/** Resolves once the signal aborted. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export function describeReplyStreamContract(ctx: BusContractContext): void {
  describe('streamed request/reply', () => {
    test('the events arrive in order, then the reply; a plain request gets no stream', async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle<{ n: number }>(subject, async (msg) => {
        if (msg.stream === null) return { streamed: false };
        for (let i = 1; i <= msg.data.n; i++) await msg.stream.send('delta', { i, text: `part ${i}` });
        return { streamed: true, requestId: msg.headers['X-Request-Id'] };
      });
      const { parts, error } = await readAll(
        bus.requestStream(subject, { n: 50 }, { timeoutMs: 2_000, headers: { 'X-Request-Id': 'req-s' } }),
      );
      expect(error).toBeUndefined();
      expect(parts).toHaveLength(51);
      expect(parts.slice(0, 50)).toEqual(
        Array.from({ length: 50 }, (_, k) => ({
          kind: 'event',
          event: 'delta',
          data: { i: k + 1, text: `part ${k + 1}` },
        })),
      );
      expect(parts[50]).toEqual({ kind: 'reply', data: { streamed: true, requestId: 'req-s' } });
      await expect(bus.request(subject, { n: 1 }, { timeoutMs: 2_000 })).resolves.toEqual({
        streamed: false,
      });
    });

    test('a handler that sends no event answers with its reply alone', async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle(subject, () => 'just the reply');
      const { parts } = await readAll(bus.requestStream(subject, null, { timeoutMs: 2_000 }));
      expect(parts).toEqual([{ kind: 'reply', data: 'just the reply' }]);
    });

    test("a handler's AppError mid-stream ends it with its code, status, message and hint", async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle(subject, async (msg) => {
        await msg.stream?.send('start', { id: 1 });
        throw new AppError('UPSTREAM_ERROR', 'The model provider failed: 500.', {
          hint: 'Retry in a minute.',
        });
      });
      const { parts, error } = await readAll(bus.requestStream(subject, null, { timeoutMs: 2_000 }));
      expect(parts).toEqual([{ kind: 'event', event: 'start', data: { id: 1 } }]);
      expect(error?.code).toBe('UPSTREAM_ERROR');
      expect(error?.status).toBe(502);
      expect(error?.message).toBe('The model provider failed: 500.');
      expect(error?.hint).toBe('Retry in a minute.');
    });

    test("the requester's cancel stops delivery; the handler's signal aborts and send rejects", async () => {
      const { bus, peer, subject } = ctx;
      const seen = deferred<ReplyStream>();
      const outcome = deferred<unknown>();
      await peer.handle(subject, async (msg) => {
        const stream = msg.stream!;
        seen.resolve(stream);
        await stream.send('delta', 1);
        await aborted(stream.signal);
        outcome.resolve(await stream.send('delta', 2).catch((error: unknown) => error));
        return 'never read';
      });
      const read: StreamPart[] = [];
      for await (const part of bus.requestStream(subject, null, { timeoutMs: 2_000 })) {
        read.push(part);
        break;
      }
      const stream = await seen.promise;
      await aborted(stream.signal);
      expect(read).toEqual([{ kind: 'event', event: 'delta', data: 1 }]);
      const refused = await outcome.promise;
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('CLIENT_CLOSED_REQUEST');
    });

    test('aborting the signal before any event cancels the waiting handler too', async () => {
      const { bus, peer, subject } = ctx;
      const started = deferred();
      const handlerSaw = deferred<boolean>();
      await peer.handle(subject, async (msg) => {
        started.resolve();
        await aborted(msg.stream!.signal);
        handlerSaw.resolve(msg.stream!.signal.aborted);
        return 'too late';
      });
      const controller = new AbortController();
      const reading = readAll(
        bus.requestStream(subject, null, { timeoutMs: 5_000, signal: controller.signal }),
      );
      await started.promise;
      controller.abort();
      const { parts, error } = await reading;
      expect(parts).toEqual([]);
      expect(error?.code).toBe('CLIENT_CLOSED_REQUEST');
      await expect(handlerSaw.promise).resolves.toBe(true);
    });

    test('a subject nobody handles fails the first read at once with SERVICE_UNAVAILABLE', async () => {
      const { bus, subject } = ctx;
      const started = performance.now();
      const error = await rejectionOf(
        readAll(bus.requestStream(`${subject}.nobody`, null, { timeoutMs: 5_000 })).then((r) => {
          throw r.error;
        }),
      );
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
      expect(error.message).toContain(`${subject}.nobody`);
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    test('no first event within timeoutMs: UPSTREAM_TIMEOUT, and the handler is told to stop', async () => {
      const { bus, peer, subject } = ctx;
      const stopped = new Collector<boolean>();
      await peer.handle(subject, async (msg) => {
        await aborted(msg.stream!.signal);
        stopped.push(true);
        return 'too late';
      });
      const started = performance.now();
      const { parts, error } = await readAll(bus.requestStream(subject, null, { timeoutMs: 200 }));
      const elapsed = performance.now() - started;
      expect(parts).toEqual([]);
      expect(error?.code).toBe('UPSTREAM_TIMEOUT');
      expect(error?.message).toContain(subject);
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(1_500);
      await expect(stopped.atLeast(1)).resolves.toEqual([true]);
    });

    test('silence after an event longer than idleTimeoutMs: UPSTREAM_TIMEOUT after the events sent', async () => {
      const { bus, peer, subject } = ctx;
      const stopped = new Collector<boolean>();
      await peer.handle(subject, async (msg) => {
        await msg.stream!.send('start', {});
        await aborted(msg.stream!.signal);
        stopped.push(true);
        return 'too late';
      });
      const started = performance.now();
      const { parts, error } = await readAll(
        bus.requestStream(subject, null, { timeoutMs: 5_000, idleTimeoutMs: 200 }),
      );
      const elapsed = performance.now() - started;
      expect(parts).toEqual([{ kind: 'event', event: 'start', data: {} }]);
      expect(error?.code).toBe('UPSTREAM_TIMEOUT');
      expect(error?.message).toContain('200 ms');
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(1_500);
      await expect(stopped.atLeast(1)).resolves.toEqual([true]);
    });

    test('an event name that is not a plain name, or is done or error, is refused', async () => {
      const { bus, peer, subject } = ctx;
      await peer.handle(subject, async (msg) => {
        const refusals: string[] = [];
        for (const name of ['done', 'error', 'two words', 'line\nbreak', '']) {
          await msg.stream!.send(name, null).catch((error: unknown) => refusals.push((error as Error).name));
        }
        return refusals;
      });
      const { parts } = await readAll(bus.requestStream(subject, null, { timeoutMs: 2_000 }));
      expect(parts).toEqual([
        { kind: 'reply', data: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'] },
      ]);
    });
  });
}
