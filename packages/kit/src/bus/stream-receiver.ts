/**
 * The requester's end of a streamed reply, shared by both buses: the bus hands it the parts as
 * they arrive (stream-wire.ts) and it hands them to the reader in order, enforcing the timeouts.
 * It ends exactly once: with the reply, with a failure (the handler's AppError, no responders,
 * a timeout, a reply that is not JSON) or with the reader's cancel. A timeout and a cancel also
 * tell the answering side to stop, through the cancel the `accepted` part brought; a cancel that
 * comes before that part is sent as soon as it arrives.
 */
import { AppError } from '@pag/contracts';
import { errorFromHeaders } from './error-headers.ts';
import { BusCancelledError, BusTimeoutError } from './errors.ts';
import type { WirePart } from './stream-wire.ts';
import { STREAM_IDLE_TIMEOUT_MS, STREAM_MAX_DURATION_MS } from './stream-wire.ts';
import type { StreamPart, StreamRequestOptions } from './types.ts';
import { decodePayload } from './wire.ts';

type State = 'open' | 'replied' | 'failed';

export class StreamReceiver<R> implements AsyncIterable<StreamPart<R>> {
  readonly #subject: string;
  readonly #options: StreamRequestOptions;
  /** Releases what the bus holds for this stream (e.g. the NATS inbox subscription). */
  readonly #release: () => void;
  readonly #parts: StreamPart<R>[] = [];
  #state: State = 'open';
  #failure: unknown;
  #failureRead = false;
  #wake: (() => void) | undefined;
  #cancelResponder: (() => void) | undefined;
  /** The stream ended on our side before the responder said where a cancel goes. */
  #cancelPending = false;
  #released = false;
  #timer: NodeJS.Timeout | undefined;
  #deadline: NodeJS.Timeout | undefined;

  constructor(subject: string, options: StreamRequestOptions, release: () => void) {
    this.#subject = subject;
    this.#options = options;
    this.#release = release;
    const signal = options.signal;
    if (signal?.aborted) {
      // Cancelled before it was sent: the bus sends nothing (see `ended`).
      this.#end(new BusCancelledError(subject), false);
      return;
    }
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#arm(options.timeoutMs, () => new BusTimeoutError(subject, options.timeoutMs));
    const maxMs = Math.min(options.maxDurationMs ?? STREAM_MAX_DURATION_MS, STREAM_MAX_DURATION_MS);
    this.#deadline = setTimeout(
      () =>
        this.#end(
          new BusTimeoutError(subject, maxMs, {
            message: `The stream on ${subject} did not end within ${maxMs} ms.`,
          }),
          true,
        ),
      maxMs,
    );
  }

  /** A part from the answering side; `cancel` tells that side to stop. */
  receive(part: WirePart, cancel: () => void): void {
    if (part.kind === 'accepted') {
      this.#cancelResponder = cancel;
      if (this.#cancelPending) this.#stopResponder();
      return;
    }
    if (this.#state !== 'open') return;
    let data: unknown;
    try {
      data = decodePayload(part.data);
    } catch (error) {
      this.#cancelResponder ??= cancel;
      this.#end(
        new AppError('UPSTREAM_ERROR', `The streamed reply on ${this.#subject} is not JSON.`, {
          cause: error,
          expose: true,
        }),
        true,
      );
      return;
    }
    if (part.kind === 'event') {
      this.#parts.push({ kind: 'event', event: part.event ?? '', data });
      const idleMs = this.#options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
      this.#arm(
        idleMs,
        () =>
          new BusTimeoutError(this.#subject, idleMs, {
            message: `No event on ${this.#subject} for ${idleMs} ms.`,
          }),
      );
      this.#notify();
      return;
    }
    const failure = errorFromHeaders(part.headers);
    if (failure) {
      this.#end(failure, false);
      return;
    }
    this.#parts.push({ kind: 'reply', data: data as R });
    this.#state = 'replied';
    this.#finish();
  }

  /** Whether the stream is over on this side (then a bus does not send the request at all). */
  get ended(): boolean {
    return this.#state !== 'open';
  }

  /** The bus's own failure (e.g. no responders): the answering side never started. */
  fail(error: unknown): void {
    this.#end(error, false);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart<R>> {
    return {
      next: () => this.#next(),
      return: async () => {
        // The reader left before the end: the answer is not wanted any more.
        if (this.#state === 'open') this.#end(new BusCancelledError(this.#subject), true);
        return { done: true, value: undefined };
      },
    };
  }

  async #next(): Promise<IteratorResult<StreamPart<R>>> {
    for (;;) {
      const part = this.#parts.shift();
      if (part !== undefined) return { done: false, value: part };
      if (this.#state === 'replied') return { done: true, value: undefined };
      if (this.#state === 'failed') {
        if (this.#failureRead) return { done: true, value: undefined };
        this.#failureRead = true;
        throw this.#failure;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #onAbort = (): void => {
    this.#end(new BusCancelledError(this.#subject), true);
  };

  #end(failure: unknown, stopResponder: boolean): void {
    if (this.#state !== 'open') return;
    this.#state = 'failed';
    this.#failure = failure;
    // The events that arrived before a failure are still read, then the failure; after a cancel
    // nothing is.
    if (failure instanceof BusCancelledError) this.#parts.length = 0;
    if (stopResponder) {
      if (this.#cancelResponder !== undefined) this.#stopResponder();
      else this.#cancelPending = true;
    }
    this.#finish();
  }

  #stopResponder(): void {
    this.#cancelPending = false;
    this.#cancelResponder?.();
    this.#releaseOnce();
  }

  #finish(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#deadline);
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    // Waiting for `accepted` to pass the cancel on: held no longer than the first-event timeout.
    if (this.#cancelPending) this.#timer = setTimeout(() => this.#releaseOnce(), this.#options.timeoutMs);
    else this.#releaseOnce();
    this.#notify();
  }

  #releaseOnce(): void {
    if (this.#released) return;
    this.#released = true;
    clearTimeout(this.#timer);
    this.#release();
  }

  #arm(ms: number, failure: () => AppError): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#end(failure(), true), ms);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
