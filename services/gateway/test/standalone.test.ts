/**
 * The gateway as its own process (`pnpm --filter @pag/gateway start`) on a real nats-server:
 * requests for another service cross the bus to whichever process answers the subject.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AuthSubjects } from '@pag/contracts';
import { createLogger, NatsBus } from '@pag/kit';
import type { NatsServer } from '@pag/kit/testing';
import { startNatsServer } from '@pag/kit/testing';
import type { ReadyProcess } from '@pag/testkit';
import { startReadyProcess } from '@pag/testkit';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let nats: NatsServer;
let gateway: ReadyProcess;
let peer: NatsBus;
beforeAll(async () => {
  nats = await startNatsServer();
  gateway = await startReadyProcess({
    args: [MAIN],
    env: { NATS_URL: nats.url, PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  });
  peer = await NatsBus.connect({
    url: nats.url,
    name: 'test-auth',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});
afterAll(async () => {
  await peer?.close();
  await gateway?.stop();
  await nats?.stop();
});

describe('gateway on its own, over NATS', () => {
  test('prints its ready line with the URL it serves', () => {
    expect(gateway.url).toMatch(/^http:\/\/localhost:\d+$/);
  });

  test('answers 503 while no process serves the subject, and the answer once one does', async () => {
    const body = JSON.stringify({ agentId: 'agent-1', requestedScopes: ['read'], message: 'hello' });
    const post = () =>
      fetch(`${gateway.url}/api/v1/handshakes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });

    const before = await post();
    expect(before.status).toBe(503);

    const subscription = await peer.handle(AuthSubjects.handshakeCreate, () => ({
      handshakeId: 'hs_9',
      status: 'pending',
    }));
    try {
      const after = await post();
      expect(after.status).toBe(201);
      expect(await after.json()).toEqual({ handshakeId: 'hs_9', status: 'pending' });
    } finally {
      await subscription.close();
    }
  });

  test('stops on SIGTERM with exit code 0', async () => {
    expect(await gateway.stop('SIGTERM')).toBe(0);
  });
});
