import type { IncomingHttpHeaders } from 'node:http';
import { Agent, createServer, request } from 'node:http';
import { describe, expect, test } from '@jest/globals';
import { closeServer, listen } from './http-server.ts';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

function get(port: number, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('closeServer', () => {
  test('keeps answering while it drains, each answer closing its connection, then stops accepting', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listen(server, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, agent)).headers.connection).toBe('keep-alive');

      // Long enough for a loaded machine's loopback request to be answered within it: with 400 ms a
      // slow answer came after the drain (server.listening false; a 1 ms drain fails the same way).
      const closing = closeServer(server, { drainMs: 3_000 });
      const during = await get(port, agent);
      expect(during.status).toBe(200);
      expect(during.headers.connection).toBe('close');
      expect(server.listening).toBe(true);

      await closing;
      await expect(get(port, new Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      agent.destroy();
    }
  });

  test('an answer in flight when it stops accepting closes its connection', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = createServer((_req, res) => {
      arrived();
      void released.then(() => res.end('late'));
    });
    const port = await listen(server, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    try {
      const answer = get(port, agent);
      await arrival;
      const closing = closeServer(server);
      release();
      expect((await answer).headers.connection).toBe('close');
      await closing;
    } finally {
      agent.destroy();
    }
  });
});
