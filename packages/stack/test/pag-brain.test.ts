/**
 * `pag persona|knowledge|identity` against the data of a running stack, the acceptance
 * from a shell: a persona set with `pag persona set` is the one an agent's context carries, with
 * its soul_content; a document added with `pag knowledge add` is in the agent's knowledge base and
 * found by `pag knowledge list --q`; `pag identity set` shows in the context. An owner named by
 * email reaches only its own personas, documents and agents; mistakes are one line, exit code 2.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DEFAULT_PERSONA } from '@pag/brain';
import type { GatewayContext, KnowledgeBase } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from './support/pag.ts';

const ALICE = 'alice.brain@example.test';
const BOB = 'bob.brain@example.test';

let dataDir: string;
let stack: StackProcess;
let stdin = '';
const pag = pagCommand(
  () => dataDir,
  () => stdin,
);
/** `pag …` with `input` on standard input. */
const pagWith = (input: string, ...argv: string[]) => {
  stdin = input;
  return pag(...argv).finally(() => {
    stdin = '';
  });
};

const tokens: Record<string, string> = {};
const agents: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pag-brain-test-'));
  await chmod(dataDir, 0o755);
  stack = await startStackProcess({ dataDir });
  for (const email of [ALICE, BOB]) {
    expect((await pag('owner', 'create', '--email', email, '--password', 'a long enough pass')).code).toBe(0);
    const created = await pag('token', 'create', '--owner', email, '--name', 'bot', '--scopes', 'full');
    expect(created.code).toBe(0);
    tokens[email] = created.out.at(-1) ?? '';
    const listed = await pag('agent', 'list', '--owner', email, '--json');
    agents[email] = (JSON.parse(listed.out.join('\n')) as { id: string }[])[0]?.id ?? '';
  }
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function api<T>(owner: string, path: string): Promise<T> {
  const response = await fetch(`${stack.url}${path}`, {
    headers: { authorization: `Bearer ${tokens[owner]}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}
const context = (owner: string) => api<GatewayContext>(owner, '/api/v1/gateway/context');

describe('pag persona', () => {
  test('a fresh owner has the default persona; set --default makes the context carry the new one', async () => {
    const before = await pag('persona', 'list', '--owner', ALICE);
    expect(before).toMatchObject({ code: 0, err: [] });
    expect(before.out).toEqual([expect.stringContaining(`"${DEFAULT_PERSONA.name}"  default`)]);

    const soul = '# Helper\n\nAnswer in one sentence.\n';
    const set = await pagWith(soul, 'persona', 'set', '--owner', ALICE, '--name', 'Helper', '--default');
    expect(set).toMatchObject({ code: 0, err: [] });
    expect(set.out[0]).toMatch(/^created per_\S+ {2}"Helper" {2}default/);
    expect((await context(ALICE)).persona).toMatchObject({
      name: 'Helper',
      soul_content: soul,
      active: true,
    });

    const changed = await pagWith(
      'Answer in two sentences.',
      'persona',
      'set',
      '--owner',
      ALICE,
      '--name',
      'Helper',
    );
    expect(changed.out[0]).toMatch(/^updated per_\S+ {2}"Helper" {2}default/);
    expect((await context(ALICE)).persona?.soul_content).toBe('Answer in two sentences.');
    expect((await context(BOB)).persona?.name).toBe(DEFAULT_PERSONA.name);
  });

  test('assign gives an agent of the owner its own persona, --default takes it back', async () => {
    const agent = agents[ALICE] ?? '';
    const own = await pag(
      'persona',
      'assign',
      '--owner',
      ALICE,
      '--agent',
      agent,
      '--persona',
      DEFAULT_PERSONA.name,
    );
    expect(own).toMatchObject({ code: 0, err: [] });
    expect((await context(ALICE)).persona?.name).toBe(DEFAULT_PERSONA.name);
    const listed = (await pag('persona', 'list', '--owner', ALICE)).out.join('\n');
    expect(listed).toContain(`agents ${agent}`);
    expect((await pag('persona', 'assign', '--owner', ALICE, '--agent', agent, '--default')).code).toBe(0);
    expect((await context(ALICE)).persona?.name).toBe('Helper');
  });

  test("another owner's agent, an unknown persona and empty input are one-line mistakes (exit 2)", async () => {
    const foreign = await pag(
      'persona',
      'assign',
      '--owner',
      ALICE,
      '--agent',
      agents[BOB] ?? '',
      '--default',
    );
    expect(foreign).toMatchObject({ code: 2, err: [expect.stringContaining(`no agent ${agents[BOB]}`)] });
    const unknown = await pag(
      'persona',
      'assign',
      '--owner',
      ALICE,
      '--agent',
      agents[ALICE] ?? '',
      '--persona',
      'Nope',
    );
    expect(unknown).toMatchObject({ code: 2, err: [expect.stringContaining('no persona named "Nope"')] });
    const empty = await pagWith('', 'persona', 'set', '--owner', ALICE, '--name', 'Empty');
    expect(empty).toMatchObject({ code: 2, err: [expect.stringContaining('standard input')] });
    const badName = await pagWith('x', 'persona', 'set', '--owner', ALICE, '--name', ' ');
    expect(badName.code).toBe(2);
    expect(badName.err).toHaveLength(1);
    expect((await pag('persona', 'list', '--owner', BOB)).out).toHaveLength(1);
  });
});

describe('pag knowledge', () => {
  test('add puts a document in the agent’s knowledge base; list --q finds it; remove deletes it', async () => {
    const added = await pagWith(
      '# Travel\n\nAlice prefers window seats on long flights.',
      'knowledge',
      'add',
      '--owner',
      ALICE,
      '--title',
      'Travel preferences',
      '--kind',
      'preferences',
    );
    expect(added).toMatchObject({ code: 0, err: [] });
    const id = /doc_\S+/.exec(added.out[0] ?? '')?.[0] ?? '';
    expect(id).not.toBe('');
    const base = await api<KnowledgeBase>(ALICE, '/api/v1/brain/knowledge-base');
    expect(base.documents.map((d) => [d.id, d.title, d.kind])).toEqual([
      [id, 'Travel preferences', 'preferences'],
    ]);

    const found = await pag('knowledge', 'list', '--owner', ALICE, '--q', 'window seat');
    expect(found.out).toEqual([expect.stringContaining(id)]);
    expect(found.out[0]).toContain('«window»');
    expect((await pag('knowledge', 'list', '--owner', BOB, '--q', 'window seat')).out).toEqual([
      expect.stringContaining('match'),
    ]);
    expect((await pag('knowledge', 'list', '--owner', BOB)).out).toEqual([
      expect.stringContaining('no knowledge'),
    ]);

    const foreign = await pag('knowledge', 'remove', '--owner', BOB, '--id', id);
    expect(foreign).toMatchObject({ code: 2, err: [expect.stringContaining(`no knowledge document ${id}`)] });
    expect((await pag('knowledge', 'remove', '--owner', ALICE, '--id', id)).code).toBe(0);
    expect((await api<KnowledgeBase>(ALICE, '/api/v1/brain/knowledge-base')).documents).toEqual([]);
  });

  test('a kind that is not a label is one line naming --kind (exit 2)', async () => {
    const bad = await pagWith(
      'x',
      'knowledge',
      'add',
      '--owner',
      ALICE,
      '--title',
      'T',
      '--kind',
      'Not A Kind',
    );
    expect(bad).toMatchObject({ code: 2, err: [expect.stringContaining('--kind')] });
    expect(bad.err).toHaveLength(1);
  });
});

describe('pag identity set', () => {
  test('sets only the given fields; the context shows them', async () => {
    const set = await pag(
      'identity',
      'set',
      '--owner',
      ALICE,
      '--name',
      'Alice',
      '--timezone',
      'Europe/Berlin',
      '--locale',
      'de-DE',
    );
    expect(set).toMatchObject({ code: 0, err: [] });
    expect(set.out).toContain('timezone: Europe/Berlin');
    expect((await context(ALICE)).user).toEqual({
      name: 'Alice',
      email: ALICE,
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      summary: null,
    });
    await pag('identity', 'set', '--owner', ALICE, '--summary', 'Engineer in Berlin.');
    expect((await context(ALICE)).user).toMatchObject({ name: 'Alice', summary: 'Engineer in Berlin.' });
    expect((await context(BOB)).user).toMatchObject({ name: 'bob.brain', timezone: null });
  });

  test('a time zone that is not IANA is one clear line naming --timezone, exit 2, nothing changed', async () => {
    const bad = await pag('identity', 'set', '--owner', ALICE, '--timezone', 'Mars/Olympus');
    expect(bad.code).toBe(2);
    expect(bad.err).toEqual([expect.stringMatching(/^pag: --timezone: /)]);
    expect((await context(ALICE)).user?.timezone).toBe('Europe/Berlin');
  });
});

describe('DELETE /api/v1/memory/:id through the gateway', () => {
  test("an agent deletes its own entry; another owner's agent gets 404 with the usual error body", async () => {
    const write = await fetch(`${stack.url}/api/v1/memory`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[ALICE]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Delete me later.' }),
    });
    expect(write.status).toBe(201);
    const { id } = (await write.json()) as { id: string };
    const remove = (owner: string) =>
      fetch(`${stack.url}/api/v1/memory/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tokens[owner]}` },
      });
    const foreign = await remove(BOB);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: expect.any(String),
        hint: expect.any(String),
        requestId: expect.any(String),
      },
    });
    const own = await remove(ALICE);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ id, deleted: true });
    expect((await context(ALICE)).memory?.map((entry) => entry.id)).not.toContain(id);
    expect((await remove(ALICE)).status).toBe(404);
  });
});

describe('pag memory', () => {
  test('list shows each entry with its agent, --q searches; remove and clear act on the owner’s own', async () => {
    const write = async (owner: string, content: string) => {
      const response = await fetch(`${stack.url}/api/v1/memory`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[owner]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const first = await write(ALICE, 'Alice drinks green tea.');
    await write(ALICE, 'Alice flies to Lisbon on Monday.');
    const bobs = await write(BOB, 'Bob drinks tea too.');

    const listed = await pag('memory', 'list', '--owner', ALICE);
    expect(listed).toMatchObject({ code: 0, err: [] });
    expect(listed.out.slice(0, 2).map((line) => line.split('  ')[2])).toEqual([agents[ALICE], agents[ALICE]]);
    expect(listed.out[1]).toContain(first);
    expect(listed.out.at(-1)).toBe(`2 shown, 2 memory entries of ${ALICE} in all`);
    const found = await pag('memory', 'list', '--owner', ALICE, '--q', 'tea');
    expect(found.out[0]).toContain('«tea»');
    expect(found.out.join('\n')).not.toContain(bobs);

    expect(await pag('memory', 'remove', '--owner', ALICE, '--id', bobs)).toMatchObject({
      code: 2,
      err: [expect.stringContaining(`no memory entry ${bobs}`)],
    });
    expect((await pag('memory', 'remove', '--owner', ALICE, '--id', first)).code).toBe(0);
    const cleared = await pag('memory', 'clear', '--owner', ALICE, '--agent', agents[ALICE] ?? '');
    expect(cleared.out).toEqual([`removed 1 memory entries of ${agents[ALICE]}`]);
    expect((await context(ALICE)).memory).toEqual([]);
    expect((await context(BOB)).memory?.map((entry) => entry.id)).toEqual([bobs]);
    expect((await pag('memory', 'clear', '--owner', ALICE)).code).toBe(2);
  });
});
