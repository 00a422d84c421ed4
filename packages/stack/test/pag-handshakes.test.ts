/**
 * `pnpm pag handshake …` against a running stack's data: a request made over HTTP is listed for
 * its owner, approved with narrowed scopes and a limit (the token is the last line and works
 * through the gateway with exactly those scopes), or denied; with two owners it is claimed first.
 * Mistakes, and another owner's request, are one line and exit code 2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from './support/pag.ts';

let stack: StackProcess;
beforeAll(async () => {
  stack = await startStackProcess();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const pag = pagCommand(() => stack.dataDir);

let requests = 0;
async function requestAccess(proof: Record<string, string> = {}) {
  requests += 1;
  const response = await fetch(`${stack.url}/api/v1/handshakes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      agentId: `cli-agent-${requests}`,
      requestedScopes: ['read', 'availability'],
      message: `CLI agent ${requests}`,
      ...proof,
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { handshakeId: string; claimUrl: string };
}

const statusOf = async (id: string) =>
  ((await (await fetch(`${stack.url}/api/v1/handshakes/${id}/status`)).json()) as { status: string }).status;

const DAY_MS = 24 * 3600 * 1000;
const ALICE = 'alice@example.test';
const BOB = 'bob@example.test';

describe('pag handshake', () => {
  let first: { handshakeId: string };
  beforeAll(async () => {
    expect((await pag('owner', 'create', '--email', ALICE, '--password', 'a long enough pass')).code).toBe(0);
    // Alice is the only owner: this request is hers at once.
    first = await requestAccess();
  });

  test('list shows the owner’s pending requests', async () => {
    const listed = await pag('handshake', 'list', '--owner', ALICE);
    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(1);
    expect(listed.out[0]).toMatch(
      new RegExp(
        `^${first.handshakeId}  "cli-agent-1"  asks read availability  created \\S+Z  message "CLI agent 1"$`,
      ),
    );
  });

  test('approve narrows the scopes; the token (last line) works with exactly those', async () => {
    const approved = await pag(
      'handshake',
      'approve',
      '--owner',
      ALICE,
      '--id',
      first.handshakeId,
      '--scopes',
      'read',
      '--daily',
      '50',
    );
    expect(approved).toMatchObject({ code: 0, err: [] });
    expect(approved.out[0]).toBe(`approved ${first.handshakeId} from "cli-agent-1" for ${ALICE}:`);
    expect(approved.out[1]).toMatch(
      /^ag_\S+ {2}handshake {2}"cli-agent-1" {2}active {2}scopes read {2}per day 50/,
    );
    // Without --expires, the token works for 90 days.
    const expires = Date.parse(/ expires (\S+)/.exec(approved.out[1] ?? '')?.[1] ?? '');
    expect(Math.abs(expires - (Date.now() + 90 * DAY_MS))).toBeLessThan(60_000);
    const token = approved.out.at(-1) ?? '';
    expect(await statusOf(first.handshakeId)).toBe('approved');
    const capabilities = await fetch(`${stack.url}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(capabilities.status).toBe(200);
    expect(await capabilities.json()).toMatchObject({ scopes: ['read'], tokenKind: 'handshake' });
    expect((await pag('handshake', 'list', '--owner', ALICE)).out).toEqual([
      `no pending handshakes for ${ALICE}`,
    ]);
  });

  test('deny makes the status denied', async () => {
    const { handshakeId } = await requestAccess();
    const denied = await pag('handshake', 'deny', '--owner', ALICE, '--id', handshakeId);
    expect(denied).toMatchObject({ code: 0, out: [`denied ${handshakeId} from "cli-agent-2" for ${ALICE}`] });
    expect(await statusOf(handshakeId)).toBe('denied');
  });

  test('--expires sets the day the token stops working; a past or malformed day is refused', async () => {
    const { handshakeId } = await requestAccess();
    const approve = (...extra: string[]) =>
      pag('handshake', 'approve', '--owner', ALICE, '--id', handshakeId, ...extra);
    expect(await approve('--expires', '2020-01-01')).toMatchObject({
      code: 2,
      err: ['pag: The expiry must be in the future.'],
    });
    expect(await approve('--expires', 'next week')).toMatchObject({
      code: 2,
      err: ['pag: --expires must be a date written YYYY-MM-DD.'],
    });
    expect(await statusOf(handshakeId)).toBe('pending');
    const day = new Date(Date.now() + 30 * DAY_MS).toISOString().slice(0, 10);
    const approved = await approve('--expires', day);
    expect(approved.code).toBe(0);
    // Through that day, UTC.
    const end = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();
    expect(approved.out[1]).toContain(` expires ${end}`);
  });

  test('approving a request with a proof prints no token: the agent collects it itself', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    const { handshakeId } = await requestAccess({ codeChallenge, codeChallengeMethod: 'S256' });
    const approved = await pag('handshake', 'approve', '--owner', ALICE, '--id', handshakeId);
    expect(approved).toMatchObject({ code: 0, err: [] });
    expect(approved.out).toHaveLength(3);
    expect(approved.out[2]).toBe(
      'Nothing to share: the agent collects its token itself on its next status poll (it gave a proof).',
    );
    expect(approved.out.join('\n')).not.toContain('pag_ht_');
    const collected = await fetch(`${stack.url}/api/v1/handshakes/${handshakeId}/status`, {
      headers: { 'Handshake-Verifier': verifier },
    });
    const { token } = (await collected.json()) as { token?: { accessToken: string } };
    expect(token?.accessToken).toMatch(/^pag_ht_/);
  });

  test('with two owners a request is claimed first; the other owner cannot decide it', async () => {
    expect((await pag('owner', 'create', '--email', BOB, '--password', 'a long enough pass')).code).toBe(0);
    const { handshakeId, claimUrl } = await requestAccess();
    expect((await pag('handshake', 'list', '--owner', BOB)).out).toEqual([
      `no pending handshakes for ${BOB}`,
    ]);
    const claimed = await pag('handshake', 'claim', '--owner', BOB, '--code', claimUrl);
    expect(claimed).toMatchObject({
      code: 0,
      out: [`claimed ${handshakeId} from "cli-agent-${requests}" for ${BOB}`],
    });
    for (const argv of [
      ['handshake', 'approve', '--owner', ALICE, '--id', handshakeId],
      ['handshake', 'deny', '--owner', ALICE, '--id', handshakeId],
      ['handshake', 'claim', '--owner', ALICE, '--code', claimUrl],
    ]) {
      const refused = await pag(...argv);
      expect(refused.code).toBe(2);
      expect(refused.err).toHaveLength(1);
      expect(refused.err[0]).toMatch(/^pag: No (handshake|pending handshake)/);
    }
    expect(await statusOf(handshakeId)).toBe('pending');
    expect((await pag('handshake', 'approve', '--owner', BOB, '--id', handshakeId)).code).toBe(0);
  });

  test.each([
    [['handshake', 'approve', '--id', 'hs_x'], /^pag: --owner is required$/],
    [['handshake', 'approve', '--owner', ALICE], /^pag: --id is required$/],
    [
      ['handshake', 'approve', '--owner', 'nobody@example.test', '--id', 'hs_x'],
      /^pag: no owner with the email/,
    ],
    [
      ['handshake', 'approve', '--owner', ALICE, '--id', 'hs_x', '--daily', 'lots'],
      /^pag: --daily must be a whole number$/,
    ],
    [
      ['handshake', 'approve', '--owner', ALICE, '--id', 'hs_AAAAAAAAAAAAAAAAAAAAAA'],
      /^pag: No handshake hs_A+ among yours\.$/,
    ],
    [
      ['handshake', 'deny', '--owner', ALICE, '--id', 'hs_x'],
      /^pag: No handshake with this id among yours\.$/,
    ],
  ])('%j is refused with one line and exit code 2', async (argv, message) => {
    const result = await pag(...argv);
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(message);
  });

  test('approving a decided request, or with a scope it did not ask for, is refused', async () => {
    const again = await pag('handshake', 'approve', '--owner', ALICE, '--id', first.handshakeId);
    expect(again).toMatchObject({
      code: 2,
      err: [`pag: Handshake ${first.handshakeId} was already decided.`],
    });
    const { handshakeId, claimUrl } = await requestAccess();
    expect((await pag('handshake', 'claim', '--owner', ALICE, '--code', claimUrl)).code).toBe(0);
    const wider = await pag(
      'handshake',
      'approve',
      '--owner',
      ALICE,
      '--id',
      handshakeId,
      '--scopes',
      'read full',
    );
    expect(wider.code).toBe(2);
    expect(wider.err).toEqual(['pag: "full" was not requested; you can only narrow the request.']);
    expect(await statusOf(handshakeId)).toBe('pending');
  });
});
