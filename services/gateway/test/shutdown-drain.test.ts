/**
 * The gateway's close() with SHUTDOWN_DRAIN_MS (docs/adr/0057): for the drain delay it still
 * answers, each answer closing its connection (so clients reconnect to a replica still ready),
 * then it stops accepting.
 */
import { Agent, request } from 'node:http';
import { expect, test } from '@jest/globals';
import { startTestGateway } from './start-test-gateway.ts';

function get(url: string, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('closing with SHUTDOWN_DRAIN_MS: answers during the drain close their connection, then the port refuses', async () => {
  // The request during the drain must reach the gateway before the drain ends (then idle kept-alive
  // connections are closed): 3 s, not 600 ms, so that a loaded machine's slow request still does.
  const gateway = await startTestGateway({ SHUTDOWN_DRAIN_MS: '3000' });
  const agent = new Agent({ keepAlive: true });
  const capabilities = `${gateway.url}/api/v1/capabilities`;
  try {
    expect(await get(capabilities, agent)).toEqual({ status: 200, connection: 'keep-alive' });
    const closing = gateway[Symbol.asyncDispose]();
    expect(await get(capabilities, agent)).toEqual({ status: 200, connection: 'close' });
    await closing;
    await expect(get(capabilities, new Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  } finally {
    agent.destroy();
  }
});
