/**
 * For the gateway's load scripts (usage-load.ts, audit-load.ts): the gateway process under load,
 * `LOAD_GATEWAY_MAIN` or this tree's main.ts (another build gives a before/after comparison), on
 * a free port, checking tokens at a fake auth service; and the scenarios measured against it, each
 * after a warm-up.
 */
import { fileURLToPath } from 'node:url';
import {
  freePort,
  TEST_GATEWAY_SECRET,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import type { ReadyProcess } from '@pag/testkit';
import { startReadyProcess } from '@pag/testkit';
import type { Measurement } from '../../../bench/measure.ts';
import { measure } from '../../../bench/measure.ts';

/** The entry point under load (printed with the figures). */
export const LOAD_MAIN =
  process.env.LOAD_GATEWAY_MAIN || fileURLToPath(new URL('../src/main.ts', import.meta.url));
export const LOAD_PUBLIC_URL = 'http://gateway.test';

export async function startLoadGateway(options: {
  databaseUrl: string;
  authUrl: string;
  natsUrl?: string | undefined;
}): Promise<{ base: string; process: ReadyProcess }> {
  // PUBLIC_URL is not where it listens (the ready line prints PUBLIC_URL), so the port is chosen here.
  const port = await freePort();
  const gateway = await startReadyProcess({
    args: [LOAD_MAIN],
    env: {
      PORT: String(port),
      OPS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: LOAD_PUBLIC_URL,
      DATABASE_URL: options.databaseUrl,
      AUTH_URL: options.authUrl,
      GATEWAY_SECRET: TEST_GATEWAY_SECRET,
      INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
      TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
      INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
      ...(options.natsUrl !== undefined && { NATS_URL: options.natsUrl }),
    },
  });
  return { base: `http://127.0.0.1:${port}`, process: gateway };
}

/** A scenario: its name, the path asked, the request headers. */
export type LoadScenario = [name: string, path: string, headers: Record<string, string>];

/** Each scenario against `base`: a warm-up of up to 2 s, then `durationSeconds` measured. */
export async function measureScenarios(
  base: string,
  scenarios: readonly LoadScenario[],
  options: { connections: number; durationSeconds: number; pids: number[] },
): Promise<Array<{ name: string; result: Measurement }>> {
  const { connections, durationSeconds, pids } = options;
  const measured: Array<{ name: string; result: Measurement }> = [];
  for (const [name, path, headers] of scenarios) {
    const load = {
      url: `${base}${path}`,
      headers,
      connections,
      verifyBody: (body: string) => body.length > 0,
    };
    await measure({ ...load, durationSeconds: Math.min(2, durationSeconds), pids: [] });
    measured.push({ name, result: await measure({ ...load, durationSeconds, pids }) });
  }
  return measured;
}
