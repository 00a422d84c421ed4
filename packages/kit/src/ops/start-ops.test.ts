import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Ops } from './start-ops.ts';
import { startOps } from './start-ops.ts';

let ops: Ops;
let url: string;
beforeAll(async () => {
  ops = await startOps({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${ops.port}`;
});
afterAll(async () => {
  await ops.close();
});

describe('ops listener', () => {
  test('/healthz answers while the process runs', async () => {
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  test('/readyz is 503 until the process marks its services started', async () => {
    const starting = await fetch(`${url}/readyz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({
      status: 'not ready',
      ready: false,
      checks: { start: 'starting' },
    });
    ops.health.markStarted();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  test('/readyz follows the readiness checks, then shutdown', async () => {
    let databaseUp = true;
    ops.health.addReadinessCheck('database', () => {
      if (!databaseUp) throw new Error('connection refused');
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    databaseUp = false;
    const down = await fetch(`${url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ ready: false, checks: { database: 'connection refused' } });

    databaseUp = true;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    ops.health.markShuttingDown();
    const draining = await fetch(`${url}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ checks: { shutdown: 'shutting down' } });
  });

  test('/metrics is Prometheus text with the process and HTTP metrics', async () => {
    ops.metrics.httpRequestDuration.observe(
      { service: 'gateway', method: 'GET', route: 'quickStart', status: '200' },
      0.004,
    );
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="quickStart"[^}]*\} 1/);
  });

  test('any other path is 404', async () => {
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  });
});
