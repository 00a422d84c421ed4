/**
 * The embedded stack as a user runs it (`scripts/start`, through the testkit): a child process on
 * a free port with its own DATA_DIR. It prints its ready line, serves, keeps its data across a
 * SIGKILL, and stops everything, PostgreSQL included, on SIGTERM within 10 s.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { isProcessAlive } from '@pag/kit';
import { freePort, startStackProcess } from '@pag/testkit';
import pg from 'pg';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pag-stack-test-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function stackDatabaseUrl(): Promise<string> {
  const stackFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  return stackFile.databaseUrl;
}

async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: await stackDatabaseUrl() });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

async function postmasterPid(): Promise<number> {
  const text = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
  return Number(text.split('\n', 1)[0]);
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('embedded stack', () => {
  test('serves, survives SIGKILL with its data, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const first = await startStackProcess({ dataDir, port, env: { OPS_PORT: '0' } });
    expect(first.url).toBe(`http://localhost:${port}`);
    expect(first.output()).toContain(`ready: http://localhost:${port}\n`);
    const index = await fetch(`${first.url}/api/v1/`);
    expect(index.status).toBe(200);
    // Every embedded service announced itself: the index lists nothing as unavailable.
    const { endpoints } = (await index.json()) as { endpoints: Record<string, { available: boolean }> };
    expect(Object.entries(endpoints).filter(([, endpoint]) => !endpoint.available)).toEqual([]);

    await query(
      `INSERT INTO gateway.usage_counters (account_id, agent_id, window_kind, window_start, count)
       VALUES ('acct', 'agent', 'day', '2026-11-22', 7)`,
    );
    const migrationsBefore = await query<{ migration_name: string }>(
      'SELECT migration_name FROM gateway._prisma_migrations ORDER BY migration_name',
    );
    expect(await first.stop('SIGKILL')).toBeNull();

    const second = await startStackProcess({ dataDir, port, env: { OPS_PORT: '0' } });
    try {
      expect((await fetch(`${second.url}/api/v1/`)).status).toBe(200);
      const rows = await query<{ count: number }>(
        `SELECT count FROM gateway.usage_counters WHERE account_id = 'acct' AND agent_id = 'agent'`,
      );
      expect(rows).toEqual([{ count: 7 }]);
      const migrationsAfter = await query<{ migration_name: string }>(
        'SELECT migration_name FROM gateway._prisma_migrations ORDER BY migration_name',
      );
      expect(migrationsAfter).toEqual(migrationsBefore);
    } finally {
      const postgres = await postmasterPid();
      const started = Date.now();
      expect(await second.stop('SIGTERM')).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(isProcessAlive(postgres)).toBe(false);
    }
  }, 60_000);

  test('HOST binds the ops listener too, not only the public port', async () => {
    const opsPort = await freePort();
    await using stack = await startStackProcess({ env: { HOST: '127.0.0.1', OPS_PORT: String(opsPort) } });
    const port = Number(new URL(stack.url).port);
    for (const listening of [port, opsPort]) {
      expect(await connects('127.0.0.1', listening)).toBe(true);
      // Another loopback address of this host: refused by a listener bound to 127.0.0.1 only.
      expect(await connects('127.0.0.2', listening)).toBe(false);
    }
    // Started (its ready line came): ready for traffic too, not left "starting".
    expect(await (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).json()).toMatchObject({ ready: true });
  });

  test('a bad environment stops start-up with every bad key named', async () => {
    await expect(startStackProcess({ env: { PORT: 'eighty', LOG_LEVEL: 'loud' } })).rejects.toThrow(
      /PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/,
    );
  });
});
