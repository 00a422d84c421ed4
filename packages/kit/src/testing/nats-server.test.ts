import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { startNatsServer } from './nats-server.ts';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
    expect(isRunning(server.pid)).toBe(false);
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
      expect(isRunning(pid)).toBe(true);
    }
    expect(isRunning(pid)).toBe(false);
  });
});
