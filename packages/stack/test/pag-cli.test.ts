/**
 * `pnpm pag …` against the data of a running stack (its DATA_DIR): an owner made by the CLI
 * signs in on the stack's page, a client registered through the stack is listed, a key rotation
 * keeps the retired key published. Operator mistakes are one line and exit code 2.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { Browser, startStackProcess } from '@pag/testkit';
import { pagCommand } from './support/pag.ts';

let dataDir: string;
let stack: StackProcess;
beforeAll(async () => {
  // Our own DATA_DIR, kept across the restart below (the stack removes only one it made itself).
  dataDir = await mkdtemp(join(tmpdir(), 'pag-cli-test-'));
  await chmod(dataDir, 0o755);
  stack = await startStackProcess({ dataDir });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const pag = pagCommand(() => stack.dataDir);

async function signIn(email: string, password: string) {
  const browser = new Browser(stack.url);
  const form = await browser.open('/login');
  return browser.submit(form, { email, password });
}

describe('pag owner create', () => {
  test('makes an owner who can sign in on the running stack', async () => {
    const created = await pag(
      'owner',
      'create',
      '--email',
      'cli@example.test',
      '--password',
      'a long enough pass',
      '--plan',
      'pro',
    );
    expect(created).toMatchObject({ code: 0, err: [] });
    expect(created.out[0]).toMatch(/^created owner cli@example\.test \(pro\), id \S+$/);
    const page = await signIn('cli@example.test', 'a long enough pass');
    expect(page.status).toBe(200);
    expect(page.url.pathname).toBe('/dashboard/tokens');
    expect(page.html).toContain('cli@example.test');
  });

  test.each([
    [['owner', 'create', '--password', 'a long enough pass'], /^pag: --email is required$/],
    [
      ['owner', 'create', '--email', 'x@example.test', '--password', 'a long enough pass', '--plan', 'gold'],
      /--plan must be one of free, pro, heavy/,
    ],
    [
      ['owner', 'create', '--email', 'cli@example.test', '--password', 'a long enough pass'],
      /^pag: .*already/i,
    ],
    [['owner', 'remove'], /^pag: unknown command "owner remove"/],
    [['keys', 'rotate', '--force'], /^pag: Unknown option '--force'/],
  ])('%j is refused with one line and exit code 2', async (argv, message) => {
    const result = await pag(...argv);
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]?.split('\n')[0]).toMatch(message);
  });
});

describe('pag client list', () => {
  test('lists a client registered through the stack', async () => {
    const registered = await fetch(`${stack.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Listed agent', redirect_uris: ['http://127.0.0.1:7/cb'] }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const listed = await pag('client', 'list');
    expect(listed.code).toBe(0);
    const line = listed.out.find((text) => text.startsWith(clientId));
    expect(line).toContain('"Listed agent"');
    expect(line).toContain('redirects to 127.0.0.1:7');
    const json = await pag('client', 'list', '--json');
    expect(JSON.parse(json.out.join('\n'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ clientId, clientName: 'Listed agent' })]),
    );
  });
});

describe('pag keys rotate', () => {
  test('adds a key and keeps the retired one published after a restart', async () => {
    const kids = async () =>
      ((await (await fetch(`${stack.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
        (key) => key.kid,
      );
    const before = await kids();
    expect(before).toHaveLength(1);
    const rotated = await pag('keys', 'rotate');
    expect(rotated.code).toBe(0);
    const kid = /new signing key (\S+);/.exec(rotated.out[0] ?? '')?.[1];
    expect(rotated.out[0]).toContain(`retired ${before[0]}`);

    await stack.stop();
    stack = await startStackProcess({ dataDir });
    expect(await kids()).toEqual([kid, before[0]]);
  }, 60_000);
});
