/**
 * The gateway's one address for a test: a TCP listener on a free loopback port of the test
 * process, known before any gateway starts (it is their PUBLIC_URL, the issuer of tokens), that
 * pipes each connection to a gateway replica's mapped port. Like a Kubernetes Service with
 * readiness: it polls each replica's /readyz and sends new connections round-robin to the ready
 * ones only; with none ready it closes the connection at once. As a readiness probe does, it takes
 * a replica out after FAILURE_THRESHOLD failed probes in a row (a slow answer on a loaded machine
 * is not a replica gone) and back in after one success; a replica without a container is out at once.
 */
import { get } from 'node:http';
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

/** One place the front may send connections to. */
export interface FrontBackend {
  /** The host port of its HTTP listener and its /readyz URL; undefined while it has no container. */
  endpoint(): { host: string; port: number; readyUrl: string } | undefined;
  ready: boolean;
}

/** How often each backend's /readyz is asked (a readiness probe's period, shortened for tests). */
const POLL_INTERVAL_MS = 200;
/** Twice Kubernetes' default: the test machines are often loaded far beyond their cores. */
const PROBE_TIMEOUT_MS = 2_000;
/** Kubernetes' default failureThreshold. */
const FAILURE_THRESHOLD = 3;
/**
 * How long a replica keeps answering after SIGTERM (SHUTDOWN_DRAIN_MS of the kit's containers).
 * Its readiness is 503 from the start, so after FAILURE_THRESHOLD rounds of probes (each at most a
 * poll interval and a probe timeout: 3.6 s) the front sends it nothing new. And it outlasts the
 * services' keep-alive timeout (5 s): a client connection idle all through the drain has been
 * dropped by its client (which drops an idle connection before the timeout the server announced)
 * instead of being closed by the server just as the client sends on it (docs/adr/0057).
 */
export const FRONT_DRAIN_MS = 6_000;

export class TcpFront {
  readonly #server: Server;
  readonly #backends: () => readonly FrontBackend[];
  readonly #sockets = new Set<Socket>();
  readonly #failures = new WeakMap<FrontBackend, number>();
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #closed = false;

  private constructor(server: Server, backends: () => readonly FrontBackend[]) {
    this.#server = server;
    this.#backends = backends;
    server.on('connection', (client) => this.#forward(client));
  }

  /** Listens on 127.0.0.1 on a port the system picks; `backends` is read for every connection. */
  static async listen(backends: () => readonly FrontBackend[]): Promise<TcpFront> {
    const server = createServer({ allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return new TcpFront(server, backends);
  }

  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the front is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Starts polling the backends' readiness (the ones a start waited for are ready already). */
  watchReadiness(): void {
    const round = async () => {
      await Promise.all(this.#backends().map((backend) => this.#probe(backend)));
      if (!this.#closed) this.#timer = setTimeout(tick, POLL_INTERVAL_MS);
    };
    const tick = () => {
      this.#polling = round();
    };
    tick();
  }

  #forward(client: Socket): void {
    const ready = this.#backends().flatMap((backend) => {
      const endpoint = backend.ready ? backend.endpoint() : undefined;
      return endpoint ? [endpoint] : [];
    });
    if (ready.length === 0) {
      client.destroy();
      return;
    }
    const target = ready[this.#next++ % ready.length] as (typeof ready)[number];
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        // either side gone for good: so is the other
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async #probe(backend: FrontBackend): Promise<void> {
    const endpoint = backend.endpoint();
    const answered = endpoint !== undefined && (await answers200(endpoint.readyUrl));
    // A probe of a container replaced meanwhile (a restart) says nothing about its successor.
    if (backend.endpoint()?.readyUrl !== endpoint?.readyUrl) return;
    if (answered) {
      this.#failures.set(backend, 0);
      backend.ready = true;
      return;
    }
    const failures = (this.#failures.get(backend) ?? 0) + 1;
    this.#failures.set(backend, failures);
    if (endpoint === undefined || failures >= FAILURE_THRESHOLD) backend.ready = false;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#polling;
    clearTimeout(this.#timer);
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * GET with a connection of its own (agent: false), closed after the answer: a pooled keep-alive
 * connection (fetch's) would outlive the front and keep the test's process open.
 */
function answers200(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: PROBE_TIMEOUT_MS }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
