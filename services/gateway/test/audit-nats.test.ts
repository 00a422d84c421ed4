/**
 * Audit emission on a real nats-server with JetStream: the gateway declares the AUDIT stream at
 * start, every answer waits for the stream's ack, and when the stream cannot take the event (it
 * was deleted, the server does not answer, or the connection is gone) the client gets 503
 * SERVICE_UNAVAILABLE instead of an answer that would go unrecorded.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AuditStream, ErrorBody } from '@pag/contracts';
import { createLogger, createMetrics, NatsBus } from '@pag/kit';
import type { NatsServer } from '@pag/kit/testing';
import { eventually, startNatsServer } from '@pag/kit/testing';
import { loadGatewayConfig } from '../src/config.ts';
import { AUDIT_ACK_TIMEOUT_MS, auditStreamDefinition } from '../src/pipeline/audit.ts';
import type { RunningGateway } from '../src/service.ts';
import { startGateway } from '../src/service.ts';
import { AuditLog } from './audit-log.ts';

const logger = createLogger({ service: 'audit-nats-test', level: 'silent' });
let nats: NatsServer;
let bus: NatsBus;
let gateway: RunningGateway;
let url: string;

beforeAll(async () => {
  nats = await startNatsServer();
  bus = await NatsBus.connect({ url: nats.url, name: 'gateway', logger });
  const config = loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  gateway = await startGateway({ config, bus, logger, metrics: createMetrics({ defaultMetrics: false }) });
  url = `http://127.0.0.1:${gateway.port}`;
});
afterAll(async () => {
  await gateway?.close();
  await bus?.close();
  await nats?.stop();
});

/** JetStream's own API, over the same connection: what the stream holds. */
async function storedMessages(): Promise<number> {
  const info = await bus.request<{ state: { messages: number } }>(
    `$JS.API.STREAM.INFO.${AuditStream.name}`,
    {},
    { timeoutMs: 2_000 },
  );
  return info.state.messages;
}

async function expectUnrecorded(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const { error } = ErrorBody.parse(await response.json());
  expect(error).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: 'The request could not be recorded in the audit log.',
    requestId: response.headers.get('x-request-id'),
  });
  expect(error.hint).toContain('recorded before it is answered');
}

describe('the AUDIT stream on JetStream', () => {
  test('the gateway declared the stream; each answer is in it once its response arrives', async () => {
    await using log = await AuditLog.follow(bus);
    const before = await storedMessages();
    const responses = await Promise.all(
      ['/api/v1/', '/api/v1/quick-start', '/api/v1/missing'].map((path) => fetch(`${url}${path}`)),
    );
    // Acknowledged before answered: the stream holds them as soon as the responses are here.
    expect(await storedMessages()).toBe(before + 3);
    for (const response of responses) {
      const [event] = await log.of(response.headers.get('x-request-id') ?? '');
      expect(event?.status).toBe(response.status);
    }
  });

  test('a deleted stream: 503 instead of the answer, and answers again once it exists', async () => {
    await bus.request(`$JS.API.STREAM.DELETE.${AuditStream.name}`, {}, { timeoutMs: 2_000 });
    const refused = await fetch(`${url}/api/v1/`);
    await expectUnrecorded(refused);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');

    await bus.ensureStream(auditStreamDefinition);
    expect((await fetch(`${url}/api/v1/`)).status).toBe(200);
    expect(await storedMessages()).toBe(1);
  });

  test('a server that does not acknowledge: 503 once the ack timeout has passed', async () => {
    await nats.pause();
    const startedAt = performance.now();
    try {
      await expectUnrecorded(await fetch(`${url}/api/v1/`));
    } finally {
      nats.resume();
    }
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(AUDIT_ACK_TIMEOUT_MS - 50);
    expect((await fetch(`${url}/api/v1/`)).status).toBe(200);
  });

  test('no connection to NATS: refused at once, before the request runs', async () => {
    await nats.stop();
    // The client notices a closed server on its own schedule.
    await eventually(() => !bus.isReady(), { what: 'the bus notices the server is gone' });
    const startedAt = performance.now();
    await expectUnrecorded(await fetch(`${url}/api/v1/`));
    expect(performance.now() - startedAt).toBeLessThan(AUDIT_ACK_TIMEOUT_MS);
  });
});
