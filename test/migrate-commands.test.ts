/**
 * `pnpm --filter @pag/<service> migrate` (what a Kubernetes migration Job runs): each service's
 * command applies its own migrations to DATABASE_URL once, says so, and without DATABASE_URL stops
 * with a message naming it, reading no other variable.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { TestPostgres } from '../packages/kit/src/testing/mod.ts';
import { startTestPostgres } from '../packages/kit/src/testing/mod.ts';

const run = promisify(execFile);
const SERVICES = ['auth', 'gateway', 'brain', 'proxy', 'trigger', 'audit'];
const command = (service: string) =>
  fileURLToPath(new URL(`../services/${service}/src/cli/migrate.ts`, import.meta.url));

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const migrate = (service: string, env: Record<string, string>) =>
  run(process.execPath, [command(service)], { env: { PATH: process.env.PATH ?? '', ...env } });

test.each(SERVICES)('%s: applies its migrations once, then finds them applied', async (service) => {
  const env = { DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' };
  const first = await migrate(service, env);
  expect(first.stdout).toMatch(/^applied [1-9]\d*, already applied 0\n$/);
  const again = await migrate(service, env);
  expect(again.stdout).toMatch(/^applied 0, already applied [1-9]\d*\n$/);
});

test('without DATABASE_URL: exit code 2 and one message naming it', async () => {
  const failure = (await migrate('proxy', {}).catch((error: unknown) => error)) as {
    code: number;
    stderr: string;
  };
  expect(failure.code).toBe(2);
  expect(failure.stderr).toContain('DATABASE_URL');
  expect(failure.stderr).not.toMatch(/\n\s+at /);
});
