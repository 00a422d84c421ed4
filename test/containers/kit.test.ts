/**
 * The README's testcontainers example, run as it stands in the README (the block is read from the
 * file, so the two cannot drift): the gateway answers at baseUrl, the token it made works on an
 * authenticated route, NATS takes the test user (and nobody without credentials), the logs are there, and
 * disposing leaves no container and no network of it behind.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { expect, test } from '@jest/globals';
import type { Owner, StartedGatewayContainer } from '@pag/testkit';
import * as testkit from '@pag/testkit';

const run = promisify(execFile);
const README = new URL('../../README.md', import.meta.url);
const SECTION = '### Test against the gateway with testcontainers';

/** The section's first ts block, its `import … from '@pag/testkit'` bound to the real module. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf(SECTION);
  expect(start).toBeGreaterThan(-1);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  if (block === undefined) throw new Error(`no ts block under "${SECTION}" in README.md`);
  const imports = /^import \{([^}]+)\} from '@pag\/testkit';$/m;
  expect(block).toMatch(imports);
  return block.replace(imports, 'const {$1} = testkit;');
}

interface Seen {
  gw: StartedGatewayContainer;
  owner: Owner;
  token: string;
}

type Example = (module: typeof testkit, inspect: (seen: Seen) => Promise<void>) => Promise<void>;

/** The block as the body of an async function (`await using` is Node 24's own here, not a transform). */
async function compile(): Promise<Example> {
  const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => Example;
  return new AsyncFunction(
    'testkit',
    'inspect',
    `${await readmeExample()}\nawait inspect({ gw, owner, token });`,
  );
}

/** nats-server greets with INFO, then answers CONNECT + PING with PONG, or -ERR when it refuses. */
function natsAnswers(url: string, credentials: { user?: string; pass?: string }): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let seen = '';
    let greeted = false;
    socket.on('data', (chunk) => {
      seen += chunk.toString();
      if (!greeted && seen.startsWith('INFO')) {
        greeted = true;
        socket.write(`CONNECT ${JSON.stringify({ verbose: false, ...credentials })}\r\nPING\r\n`);
      }
      const answer = /(PONG|-ERR[^\r]*)\r\n/.exec(seen)?.[1];
      if (answer !== undefined) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
  });
}

test('the README example starts the gateway, makes a working token, and leaves nothing behind', async () => {
  const example = await compile();
  let id = '';
  let networkId = '';
  await example(testkit, async ({ gw, owner, token }) => {
    id = gw.id;
    networkId = gw.network.getId();
    expect(new URL(gw.baseUrl).hostname).toBe('127.0.0.1');
    const index = await fetch(`${gw.baseUrl}/api/v1/`);
    expect(index.status).toBe(200);
    // the services' PUBLIC_URL is the front's URL: the issuer the auth service names
    const metadata = await fetch(`${gw.baseUrl}/.well-known/oauth-authorization-server`);
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe(gw.baseUrl);

    const anonymous = await fetch(`${gw.baseUrl}/api/v1/tokens/me/capabilities`);
    expect(anonymous.status).toBe(401);
    const capabilities = await fetch(`${gw.baseUrl}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(capabilities.status).toBe(200);
    expect(JSON.stringify(await capabilities.json())).toContain('full');
    expect(owner.plan).toBe('pro');

    expect(await natsAnswers(gw.natsUrl, gw.natsCredentials)).toContain('PONG');
    expect(await natsAnswers(gw.natsUrl, {})).toContain('Authorization Violation');
    expect(gw.databaseUrl).toMatch(/^postgres:\/\/pag:[^@]+@[^:]+:\d+\/pag$/);
    // each service's own lines (it says when it is ready), and all of them under one call
    const logs = await gw.logs();
    for (const service of testkit.SERVICE_NAMES) {
      expect(await gw.logs(service)).toMatch(/\bready\b/);
      expect(logs).toContain(`--- ${service} ---\n`);
    }
  });

  expect(id).not.toBe('');
  const containers = await run('docker', ['ps', '-a', '-q', '--filter', `label=pag.testkit.instance=${id}`]);
  expect(containers.stdout.trim()).toBe('');
  const networks = await run('docker', ['network', 'ls', '-q', '--filter', `id=${networkId}`]);
  expect(networks.stdout.trim()).toBe('');
}, 300_000);
