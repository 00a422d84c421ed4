/**
 * The running service's side of the audit outbox (store/audit-outbox.ts, docs/adr/0041): it
 * publishes the waiting decision events on the AUDIT stream, with the kit's publishAuditEvent
 * (msgId = the event id), when a transaction that wrote some commits (NOTIFY pag_auth_audit), at
 * start (rows written by `pnpm pag …` while no stack ran), every SWEEP_MS (a notification missed
 * while the listening connection was down) and, after a failed publish, again after a pause that
 * doubles from 1 s to 30 s. One relay runs at a time per replica; a wake-up during a run makes
 * it run once more.
 */
import type { Bus, Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications, publishAuditEvent } from '@pag/kit';
import type { AuditOutbox } from '../store/audit-outbox.ts';
import { AUDIT_OUTBOX_CHANNEL } from '../store/audit-outbox.ts';

const SWEEP_MS = 30_000;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface AuditRelay {
  /** Runs a relay now (or once more after the one running) and resolves when it is done. */
  wake(): Promise<void>;
  close(): Promise<void>;
}

export async function startAuditRelay(options: {
  outbox: AuditOutbox;
  bus: Bus;
  databaseUrl: string;
  logger: Logger;
}): Promise<AuditRelay> {
  const { outbox, bus, logger } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let retryMs = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;

  const runOnce = async (): Promise<boolean> => {
    const result = await outbox
      .relay((event) => publishAuditEvent(bus, event))
      .catch((error: unknown) => ({ sent: 0, failure: error }));
    if (result.sent > 0) logger.debug({ sent: result.sent }, 'audit events relayed');
    if (result.failure === undefined) {
      retryMs = RETRY_FIRST_MS;
      return true;
    }
    logger.error(
      { err: result.failure, sent: result.sent, retryMs },
      'audit events not relayed: they stay in the outbox for the next attempt',
    );
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void wake();
      }, retryMs);
      retry.unref();
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    }
    return false;
  };

  const wake = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        if (!(await runOnce())) break;
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const listener: NotificationListener = await listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: AUDIT_OUTBOX_CHANNEL,
    logger,
    handler: () => void wake(),
  });
  const sweep = setInterval(() => void wake(), SWEEP_MS);
  sweep.unref();
  // Rows left by a command run while no stack ran, or by a replica that stopped mid-relay.
  void wake();

  return {
    wake,
    async close() {
      closed = true;
      clearInterval(sweep);
      if (retry !== undefined) clearTimeout(retry);
      await listener.close();
      await running;
    },
  };
}
