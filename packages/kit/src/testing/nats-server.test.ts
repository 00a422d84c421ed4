import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { NatsBus } from '../bus/nats-bus.ts';
import { isProcessAlive } from '../lifecycle/process-alive.ts';
import { eventually } from './eventually.ts';
import { startNatsServer } from './nats-server.ts';

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startNatsServer', () => {
  test('serves on loopback once started; stop() ends that pid and removes its store', async () => {
    const server = await startNatsServer();
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(await acceptsConnections(server.port)).toBe(true);
    expect(existsSync(server.storeDir)).toBe(true);

    await server.stop();
    expect(isProcessAlive(server.pid)).toBe(false);
    expect(existsSync(server.storeDir)).toBe(false);
    expect(await acceptsConnections(server.port)).toBe(false);
    await server.stop();
  });

  test('a missing binary fails with the install command', async () => {
    await expect(startNatsServer({ bin: '/nonexistent/nats-server' })).rejects.toThrow(
      /apt-get install -y nats-server/,
    );
  });

  test('works with await using', async () => {
    let pid = 0;
    {
      await using server = await startNatsServer();
      pid = server.pid;
      expect(isProcessAlive(pid)).toBe(true);
    }
    expect(isProcessAlive(pid)).toBe(false);
  });

  test('pause() resolves only once the server is stopped; resume() lets it run', async () => {
    await using server = await startNatsServer();
    const state = () => {
      const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    };
    await server.pause();
    expect(state()).toBe('T');
    server.resume();
    // SIGCONT is delivered asynchronously too.
    await eventually(() => state() !== 'T', { what: 'the server runs again' });
  });

  test.each(['SIGTERM', 'SIGKILL'] as const)(
    'restart(%s): a new pid on the same port and store; a stored message is still there',
    async (signal) => {
      await using server = await startNatsServer();
      const first = server.pid;
      const stream = { name: 'RESTART', subjects: ['restart.>'] };
      const before = await NatsBus.connect({ url: server.url, name: 'restart-before' });
      try {
        await before.ensureStream(stream);
        await before.publishDurable('restart.kept', { kept: true }, { msgId: 'kept-1' });
      } finally {
        await before.close();
      }

      await server.restart(signal);
      expect(server.pid).not.toBe(first);
      expect(isProcessAlive(first)).toBe(false);
      expect(existsSync(server.storeDir)).toBe(true);
      const after = await NatsBus.connect({ url: server.url, name: 'restart-after' });
      try {
        const info = await after.request<{ state: { messages: number } }>(
          `$JS.API.STREAM.INFO.${stream.name}`,
          {},
          { timeoutMs: 2_000 },
        );
        expect(info.state.messages).toBe(1);
      } finally {
        await after.close();
      }
    },
  );
});
