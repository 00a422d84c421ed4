/**
 * Holds a response's output until its audit event is stored. The first call that would put bytes
 * on the wire (writeHead, flushHeaders, write or end) closes the gate: that call and every later
 * one are queued, nothing reaches the socket, and `onHeld` runs once the current synchronous code
 * is done (so a writeHead followed at once by end is seen as one complete answer). Then exactly
 * one of:
 *
 * - `release()` replays the queue in order and lets every later call through;
 * - `replace(status, body)` drops the queue and sends another answer instead (possible because
 *   nothing was sent); later calls are swallowed.
 *
 * While held, `write` returns false so a piped source (a forwarded answer) pauses; the 'drain'
 * that resumes it is emitted after the replay unless the socket itself asks for one.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

const OUTPUTS = ['writeHead', 'flushHeaders', 'write', 'end'] as const;
type Output = (typeof OUTPUTS)[number];
// The four methods have different overloads; the gate only stores and replays their arguments.
type Method = (...args: unknown[]) => unknown;

/** Where a held response keeps its gate, for the four shared wrappers below. */
const GATE = Symbol('auditGate');
type Gated = ServerResponse & { [GATE]: AuditGate };

/**
 * One wrapper per output method for every response, made once: each finds its response's gate
 * (`this[GATE]`) instead of closing over it, so holding a response makes no new functions
 * (four closures, a map and a set per request before: docs/adr/0076).
 */
const WRAPPERS = Object.fromEntries(
  OUTPUTS.map((method) => [
    method,
    function (this: Gated, ...args: unknown[]): unknown {
      return this[GATE].pass(method, args);
    },
  ]),
) as Record<Output, Method>;

/** What is known about the answer when the gate closes. */
export interface HeldAnswer {
  status: number;
  /** Body bytes when the answer is complete; else its declared Content-Length; else null. */
  bytesOut: number | null;
}

export class AuditGate {
  readonly #res: ServerResponse;
  readonly #onHeld: () => void;
  /** The response's own output methods, in OUTPUTS order. */
  readonly #originals: Method[];
  readonly #queue: Array<{ method: Output; args: unknown[] }> = [];
  readonly #keepHeaders: readonly string[];
  #phase: 'open' | 'held' | 'released' | 'replaced' = 'open';
  #ended = false;
  #bodyBytes = 0;
  #headStatus: number | undefined;
  #headLength: number | undefined;

  /** Headers already set now (request id, security headers) are kept on a replacement answer. */
  constructor(res: ServerResponse, onHeld: () => void) {
    this.#res = res;
    this.#onHeld = onHeld;
    this.#keepHeaders = res.getHeaderNames();
    const target = res as unknown as Record<Output, Method> & { [GATE]?: AuditGate };
    // A second gate would take the first one's wrappers for the response's own methods.
    if (target[GATE] !== undefined) throw new Error('a response is held by one audit gate only');
    this.#originals = OUTPUTS.map((method) => target[method]);
    target[GATE] = this;
    for (const method of OUTPUTS) target[method] = WRAPPERS[method];
  }

  /** A call of one of the response's output methods, through its wrapper. */
  pass(method: Output, args: unknown[]): unknown {
    if (this.#phase === 'released') return this.#call(method, args);
    return this.#intercept(method, args);
  }

  /** Whether no output was attempted yet (the answer is still being worked out). */
  get open(): boolean {
    return this.#phase === 'open';
  }

  answer(): HeldAnswer {
    const declared = this.#headLength ?? Number(this.#res.getHeader('content-length') ?? Number.NaN);
    return {
      status: this.#headStatus ?? this.#res.statusCode,
      bytesOut: this.#ended ? this.#bodyBytes : Number.isInteger(declared) ? declared : null,
    };
  }

  release(): void {
    if (this.#phase === 'released' || this.#phase === 'replaced') return;
    this.#phase = 'released';
    let wrote = false;
    let socketWantsDrain = false;
    try {
      for (const { method, args } of this.#queue.splice(0)) {
        const result = this.#call(method, args);
        if (method === 'write') {
          wrote = true;
          socketWantsDrain = result === false;
        }
      }
    } catch {
      // E.g. a writeHead queued after a write had committed the head: the answer can no longer be
      // completed as its producer meant, so it is broken off (as with headers already sent).
      this.#res.destroy();
      return;
    }
    if (wrote && !socketWantsDrain && !this.#ended) this.#res.emit('drain');
  }

  /** Sends this answer instead of the held one (nothing of which was sent); later output is dropped. */
  replace(status: number, body: string): void {
    if (this.#phase === 'released' || this.#phase === 'replaced') return;
    this.#phase = 'replaced';
    this.#queue.length = 0;
    const res = this.#res;
    if (res.headersSent || res.destroyed) return void res.destroy();
    for (const name of res.getHeaderNames()) if (!this.#keepHeaders.includes(name)) res.removeHeader(name);
    res.statusCode = status;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    // end() writes the head through res.writeHead, i.e. through this gate: let it pass once.
    this.#phase = 'released';
    try {
      this.#call('end', [body]);
    } finally {
      this.#phase = 'replaced';
    }
  }

  /** Nothing will be sent any more (the client is gone): later output is dropped. */
  abandon(): void {
    if (this.#phase === 'open') this.#phase = 'replaced';
  }

  #intercept(method: Output, args: unknown[]): unknown {
    if (this.#phase === 'replaced') {
      const callback = args.findLast((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (callback !== undefined && method !== 'writeHead') process.nextTick(callback);
      return method === 'write' ? true : method === 'flushHeaders' ? undefined : this.#res;
    }
    this.#note(method, args);
    this.#queue.push({ method, args });
    if (this.#phase === 'open') {
      this.#phase = 'held';
      queueMicrotask(this.#onHeld);
    }
    return method === 'write' ? false : method === 'flushHeaders' ? undefined : this.#res;
  }

  #note(method: Output, args: unknown[]): void {
    if (method === 'writeHead') {
      this.#headStatus = args[0] as number;
      const headers = args.find((arg): arg is OutgoingHttpHeaders => typeof arg === 'object' && arg !== null);
      const length = headers === undefined ? undefined : contentLength(headers);
      if (length !== undefined) this.#headLength = length;
      return;
    }
    if (method === 'write' || method === 'end') {
      this.#bodyBytes += byteLength(args[0], args[1]);
      if (method === 'end') this.#ended = true;
    }
  }

  #call(method: Output, args: unknown[]): unknown {
    return (this.#originals[OUTPUTS.indexOf(method)] as Method).apply(this.#res, args);
  }
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') {
    return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  }
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

function contentLength(headers: OutgoingHttpHeaders | unknown[]): number | undefined {
  // writeHead also takes a flat [name, value, …] array; only the object form is used here.
  if (Array.isArray(headers)) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-length' && Number.isInteger(Number(value))) return Number(value);
  }
  return undefined;
}
