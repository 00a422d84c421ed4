/**
 * Two connections to one broker for the ingest's tests: the audit service's and a publisher's (the
 * gateway's place). On the in-memory bus the publisher's durable publish on AUDIT is confirmed by
 * `audit-writer`, as in the embedded stack: it resolves once the row is committed. On NATS it
 * resolves at JetStream's ack, and the row follows.
 */
import { AuditStream } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { MemoryBroker, MemoryBus, NatsBus } from '@pag/kit';
import type { TestBusKind } from '@pag/kit/testing';
import { startNatsServer } from '@pag/kit/testing';

export interface IngestBuses extends AsyncDisposable {
  readonly kind: TestBusKind;
  readonly service: Bus;
  readonly publisher: Bus;
  /** Whether a resolved publish means the row is committed. */
  readonly confirmed: boolean;
  close(): Promise<void>;
}

export async function startIngestBuses(kind: TestBusKind): Promise<IngestBuses> {
  if (kind === 'memory') {
    const broker = new MemoryBroker();
    const service = new MemoryBus({ broker });
    const publisher = new MemoryBus({ broker, confirmedBy: { [AuditStream.name]: AuditStream.consumer } });
    const close = async () => {
      await publisher.close();
      await service.close();
    };
    return { kind, service, publisher, confirmed: true, close, [Symbol.asyncDispose]: close };
  }
  const server = await startNatsServer();
  try {
    const service = await NatsBus.connect({ url: server.url, name: 'audit' });
    const publisher = await NatsBus.connect({ url: server.url, name: 'gateway' });
    const close = async () => {
      await publisher.close();
      await service.close();
      await server.stop();
    };
    return { kind, service, publisher, confirmed: false, close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
