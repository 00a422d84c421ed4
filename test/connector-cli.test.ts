/**
 * `pag connector client|custom …` (docs/adr/0068) against the embedded stack: what the operator
 * stores for an owner reaches the running proxy (the table's trigger drops its copy), the client
 * secret comes from standard input and is never printed, and a connector whose URL reaches a
 * loopback address is refused naming the field.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Connector } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { eventually } from '../packages/kit/src/testing/mod.ts';
import { pagCommand } from '../packages/stack/test/support/pag.ts';

const OWNER = { email: 'dana@connector-cli.test', password: 'dana long password' };
const SECRET = 'github-client-secret-from-stdin-0123456789';

let stack: StackProcess;
let token: string;
let stdin = '';
let dir: string;

const pag = (...argv: string[]) =>
  pagCommand(
    () => stack.dataDir,
    () => stdin,
  )(...argv);

beforeAll(async () => {
  stack = await startStackProcess({});
  dir = await mkdtemp(join(tmpdir(), 'pag-connector-'));
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  const made = await pag('token', 'create', '--owner', OWNER.email, '--name', 'lister', '--scopes', 'read');
  expect(made.code).toBe(0);
  token = made.out.at(-1) ?? '';
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

async function connector(name: string): Promise<Connector | undefined> {
  const answer = await fetch(`${stack.url}/api/v1/connectors`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { connectors } = (await answer.json()) as { connectors: Connector[] };
  return connectors.find((item) => item.name === name);
}

test('client set takes the secret on standard input; the running proxy uses it; remove takes it back', async () => {
  expect(await connector('github')).toMatchObject({ canConnect: false, client: null });
  stdin = `${SECRET}\n`;
  const set = await pag(
    'connector',
    'client',
    'set',
    '--owner',
    OWNER.email,
    '--connector',
    'github',
    '--client-id',
    'gh-id',
  );
  stdin = '';
  expect(set.code).toBe(0);
  expect([...set.out, ...set.err].join('\n')).not.toContain(SECRET);
  await eventually(async () => (await connector('github'))?.client === 'owner', {
    what: 'the running proxy sees the owner client',
  });
  const listed = await pag('connector', 'custom', 'list', '--owner', OWNER.email);
  expect(listed.out).toEqual(['client\tgithub\tgh-id\tsecret set']);
  expect(
    (await pag('connector', 'client', 'remove', '--owner', OWNER.email, '--connector', 'github')).code,
  ).toBe(0);
  await eventually(async () => (await connector('github'))?.client === null, {
    what: 'the running proxy forgot the owner client',
  });
}, 60_000);

test('custom set from a file, list, remove; a loopback URL is refused naming the field', async () => {
  const definition = {
    name: 'acme',
    displayName: 'Acme',
    authorizationUrl: 'https://8.8.8.8/oauth/authorize',
    tokenUrl: 'https://8.8.8.8/oauth/token',
    apiBaseUrl: 'https://8.8.8.8/api',
    scopes: ['read'],
    clientAuth: 'client_secret_post',
    pkce: true,
    clientId: 'acme-id',
    clientSecret: 'acme-secret',
  };
  const bad = join(dir, 'bad.json');
  await writeFile(bad, JSON.stringify({ ...definition, tokenUrl: 'https://127.0.0.1/token' }));
  const refused = await pag('connector', 'custom', 'set', '--owner', OWNER.email, '--file', bad);
  expect(refused.code).not.toBe(0);
  expect(refused.err.join('\n')).toContain('tokenUrl:');

  const good = join(dir, 'acme.json');
  await writeFile(good, JSON.stringify(definition));
  expect((await pag('connector', 'custom', 'set', '--owner', OWNER.email, '--file', good)).code).toBe(0);
  await eventually(async () => (await connector('acme'))?.owned === true, {
    what: "the running proxy lists the owner's connector",
  });
  const listed = await pag('connector', 'custom', 'list', '--owner', OWNER.email);
  expect(listed.out).toEqual(['connector\tacme\t"Acme"\thttps://8.8.8.8/api\tclient acme-id']);
  expect(
    (await pag('connector', 'custom', 'remove', '--owner', OWNER.email, '--connector', 'acme')).code,
  ).toBe(0);
  await eventually(async () => (await connector('acme')) === undefined, { what: 'the connector gone' });
}, 60_000);
