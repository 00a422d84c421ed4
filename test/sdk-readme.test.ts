/**
 * packages/sdk/README.md's example, run as it stands there (the block is read from the file, so
 * the two cannot drift) by Node in a directory of its own where `@pag/sdk` is the workspace's
 * package, against a stack started here, with the token its shell lines make (same scopes).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';

const run = promisify(execFile);
const SDK = fileURLToPath(new URL('../packages/sdk/', import.meta.url));
const OWNER = 'you@example.com';

let stack: StackProcess;
let dir: string;

beforeAll(async () => {
  stack = await startStackProcess();
  dir = await mkdtemp(join(tmpdir(), 'pag-sdk-readme-'));
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function readme(): Promise<{ example: string; scopes: string }> {
  const text = await readFile(join(SDK, 'README.md'), 'utf8');
  const section = text.slice(text.indexOf('## Try it against the embedded stack'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const scopes = /pag token create [^\n]*--scopes "([^"]+)"/.exec(section)?.[1];
  if (example === undefined || scopes === undefined)
    throw new Error('no example or no token line in the README');
  return { example, scopes };
}

test('the README example runs as written: context, a memory note, knowledge, a streamed chat', async () => {
  const { example, scopes } = await readme();
  expect(
    example
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '').length,
  ).toBeLessThanOrEqual(10);
  const pag = pagCommand(() => stack.dataDir);
  expect((await pag('owner', 'create', '--email', OWNER, '--password', 'a long password')).code).toBe(0);
  const made = await pag('token', 'create', '--owner', OWNER, '--name', 'sdk', '--scopes', scopes);
  expect(made.code).toBe(0);
  const token = made.out.at(-1) ?? '';

  await mkdir(join(dir, 'node_modules', '@pag'), { recursive: true });
  await symlink(SDK, join(dir, 'node_modules', '@pag', 'sdk'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await writeFile(join(dir, 'agent.ts'), example);
  const { stdout } = await run(process.execPath, ['agent.ts'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PAG_URL: stack.url, PAG_TOKEN: token },
  });
  const [persona = '', wrote = '', reply = ''] = stdout.split('\n');
  expect(persona).toMatch(/^persona: .+, notes: 0$/);
  const noteId = /^wrote (\S+); knowledge on coffee: 0$/.exec(wrote)?.[1];
  expect(noteId).toBeDefined();
  expect(reply.length).toBeGreaterThan(0);

  const context = await fetch(`${stack.url}/api/v1/gateway/context`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { memory } = (await context.json()) as { memory: { id: string; content: string }[] };
  expect(memory).toEqual([expect.objectContaining({ id: noteId, content: 'Prefers meetings after 10:00.' })]);
}, 60_000);
