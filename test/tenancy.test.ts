/**
 * Accounts are tenants, across every surface at once: two owners on one stack. Neither sees,
 * nor revokes, the other's agents through the dashboard, the CLI or the API; an account made
 * afterwards starts with no agent and no token of anyone; each token acts for its own owner only.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { Browser, csrfOf, signUp, startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';

const ALICE = { email: 'alice@tenancy.test', password: 'alice long password' };
const BOB = { email: 'bob@tenancy.test', password: 'bob long password here' };

let stack: StackProcess;
let alice: Browser;
let bob: Browser;
beforeAll(async () => {
  stack = await startStackProcess();
  alice = new Browser(stack.url);
  bob = new Browser(stack.url);
  await signUp(alice, ALICE);
  await signUp(bob, BOB);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const pag = async (...argv: string[]) => {
  const { code, out, err } = await pagCommand(() => stack.dataDir)(...argv);
  return { code, lines: [...out, ...err] };
};

const capabilities = (token: string) =>
  fetch(`${stack.url}/api/v1/tokens/me/capabilities`, { headers: { authorization: `Bearer ${token}` } });

/** Alice makes a token on her dashboard; returns it and its agent id. */
async function aliceToken(name: string): Promise<{ token: string; agentId: string }> {
  const form = await alice.open('/dashboard/tokens');
  const created = await alice.submit(form, { name, 'scope-read': 'on' }, '/dashboard/tokens');
  expect(created.status).toBe(201);
  const token = /<code id="new-token">([^<]+)<\/code>/.exec(created.html)?.[1] ?? '';
  const body = (await (await capabilities(token)).json()) as { agent: { id: string } };
  return { token, agentId: body.agent.id };
}

describe('two owners on one gateway', () => {
  test("the dashboard shows neither the other's agents nor lets one revoke them", async () => {
    const { token, agentId } = await aliceToken('alice-private-agent');
    const bobsPage = await bob.open('/dashboard/tokens');
    expect(bobsPage.html).not.toContain('alice-private-agent');
    expect(bobsPage.html).not.toContain(agentId);
    const forged = await bob.post(`/dashboard/tokens/${agentId}/revoke`, { _csrf: csrfOf(bobsPage.html) });
    expect(forged.status).toBe(404);
    expect((await capabilities(token)).status).toBe(200);
    expect((await alice.open('/dashboard/tokens')).html).toContain('alice-private-agent');
  });

  test("the CLI, named with one owner, cannot list or revoke the other's agents", async () => {
    const { token, agentId } = await aliceToken('alice-cli-agent');
    const bobs = await pag('agent', 'list', '--owner', BOB.email, '--json');
    expect(bobs.code).toBe(0);
    expect(bobs.lines.join('\n')).not.toContain(agentId);
    const revoke = await pag('token', 'revoke', '--owner', BOB.email, '--agent', agentId);
    expect(revoke.code).toBe(2);
    expect((await capabilities(token)).status).toBe(200);
  });

  test('each token acts for its own owner only, and a new account starts with nothing', async () => {
    const { token } = await aliceToken('alice-api-agent');
    const fromAlice = await pag(
      'token',
      'create',
      '--owner',
      ALICE.email,
      '--name',
      'a2',
      '--scopes',
      'read',
    );
    const fromBob = await pag('token', 'create', '--owner', BOB.email, '--name', 'b1', '--scopes', 'read');
    const bobToken = fromBob.lines.at(-1) ?? '';
    const agentOf = async (value: string) =>
      ((await (await capabilities(value)).json()) as { agent: { id: string } }).agent.id;
    const aliceAgents = (await pag('agent', 'list', '--owner', ALICE.email, '--json')).lines.join('\n');
    const bobAgents = (await pag('agent', 'list', '--owner', BOB.email, '--json')).lines.join('\n');
    expect(aliceAgents).toContain(await agentOf(token));
    expect(aliceAgents).toContain(await agentOf(fromAlice.lines.at(-1) ?? ''));
    expect(bobAgents).toContain(await agentOf(bobToken));
    expect(bobAgents).not.toContain(await agentOf(token));

    const carol = new Browser(stack.url);
    await signUp(carol, { email: 'carol@tenancy.test', password: 'carol long password' });
    const carols = await pag('agent', 'list', '--owner', 'carol@tenancy.test', '--json');
    expect(JSON.parse(carols.lines.join('\n'))).toEqual([]);
    const page = await carol.open('/dashboard/tokens');
    for (const name of ['alice-private-agent', 'alice-cli-agent', 'alice-api-agent', 'a2', 'b1'])
      expect(page.html).not.toContain(`>${name}<`);
  });
});
