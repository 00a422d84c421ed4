/**
 * One replica of one service: the container running it now (a restart may replace it), whether
 * the front may send it connections, and everything its containers logged, kept in the test
 * process so a replaced or failed container's output is still there to read.
 */
import type { Readable } from 'node:stream';
import type { StartedTestContainer } from 'testcontainers';
import type { FrontBackend } from './front.ts';
import type { ServiceName } from './services.ts';
import { HTTP_PORTS, OPS_PORT } from './services.ts';

export class Replica implements FrontBackend {
  readonly service: ServiceName;
  readonly index: number;
  /** The running container; undefined before it started and once it stopped. */
  container: StartedTestContainer | undefined;
  ready = false;
  readonly #log: string[] = [];

  constructor(service: ServiceName, index: number) {
    this.service = service;
    this.index = index;
  }

  /** A testcontainers log consumer: keeps what the container writes (stdout and stderr). */
  readonly collectLogs = (stream: Readable): void => {
    stream.on('data', (chunk: string | Buffer) => this.#log.push(chunk.toString()));
  };

  logs(): string {
    return this.#log.join('');
  }

  endpoint(): { host: string; port: number; readyUrl: string } | undefined {
    const container = this.container;
    if (container === undefined) return undefined;
    const host = container.getHost();
    const port = container.getMappedPort(HTTP_PORTS[this.service] ?? OPS_PORT);
    return { host, port, readyUrl: `http://${host}:${container.getMappedPort(OPS_PORT)}/readyz` };
  }
}
