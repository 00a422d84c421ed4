/**
 * Handshake token pickup (docs/adr/0058), over the bus as the gateway dispatches it: an agent that
 * gave a codeChallenge when asking collects its token itself once the owner approves, with the
 * verifier in the Handshake-Verifier header, exactly once; a wrong verifier is refused whatever the
 * state; without the proof the status never carries a token, and the owner's path is unchanged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HandshakeCreated, HandshakeStatus } from '@pag/contracts';
import { AuthSubjects, HANDSHAKE_POLL_INTERVAL_SECONDS, MessageHeaders } from '@pag/contracts';
import { byOperator } from '../src/events/audit-decisions.ts';
import type { HandshakeStore } from '../src/store/handshake-store.ts';
import { auditInbox } from './support/audit-inbox.ts';
import { createOwner, introspect } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let store: HandshakeStore;
let owner: string;
beforeAll(async () => {
  t = await startTestAuth();
  store = t.auth.core.handshakes;
  // The only owner: every request is hers at once.
  owner = await createOwner(t.db);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

let agents = 0;
/** A proof as an agent makes it: a random verifier it keeps, and its S256 challenge. */
function proof() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function create(extra: Record<string, unknown> = {}): Promise<HandshakeCreated> {
  agents += 1;
  return t.bus.request<HandshakeCreated>(
    AuthSubjects.handshakeCreate,
    {
      params: {},
      query: {},
      body: {
        agentId: `picker-${agents}@test`,
        requestedScopes: ['read', 'availability'],
        message: 'Test agent.',
        ...extra,
      },
    },
    // An address per request: the creation limits are not under test here.
    { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: `203.0.113.${agents}` } },
  );
}

function status(handshakeId: string, verifier?: string): Promise<HandshakeStatus> {
  return t.bus.request<HandshakeStatus>(
    AuthSubjects.handshakeStatus,
    {
      params: { handshakeId },
      query: {},
      body: null,
      ...(verifier === undefined ? {} : { headers: { 'handshake-verifier': verifier } }),
    },
    { timeoutMs: 10_000, headers: { [MessageHeaders.requestId]: `poll-${handshakeId}` } },
  );
}

const withProof = (challenge: string) => ({ codeChallenge: challenge, codeChallengeMethod: 'S256' });

describe('creation', () => {
  test('with a proof: pickup, the poll interval, and only the challenge rests in the database', async () => {
    const { verifier, challenge } = proof();
    const created = await create(withProof(challenge));
    expect(created).toMatchObject({
      status: 'pending',
      tokenDelivery: 'pickup',
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    });
    const row = await t.db.handshake.findUniqueOrThrow({ where: { id: created.handshakeId } });
    expect(row.codeChallenge).toBe(challenge);
    expect(JSON.stringify(await t.db.handshake.findMany())).not.toContain(verifier);
    expect(await status(created.handshakeId, verifier)).toEqual({
      handshakeId: created.handshakeId,
      status: 'pending',
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    });
  });

  test('without a proof: the owner shares the token', async () => {
    expect(await create()).toMatchObject({
      tokenDelivery: 'owner',
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    });
  });

  test.each([
    [{ codeChallenge: proof().challenge, codeChallengeMethod: 'plain' }, 'codeChallengeMethod'],
    [{ codeChallenge: proof().challenge }, 'codeChallengeMethod'],
    [{ codeChallengeMethod: 'S256' }, 'codeChallenge'],
    [{ codeChallenge: 'short', codeChallengeMethod: 'S256' }, 'codeChallenge'],
  ])('%j is 400 naming %s', async (extra, field) => {
    await expect(create(extra)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining(`body.${field}:`),
    });
  });
});

describe('pickup', () => {
  test('only the verifier collects the token, once; afterwards the status says it was collected', async () => {
    const { verifier, challenge } = proof();
    const created = await create(withProof(challenge));
    const id = created.handshakeId;
    const inbox = await auditInbox(t.bus);

    const approved = await store.approve(owner, id, { scopes: ['read'], dailyLimit: 50 }, byOperator());
    // Nothing for the owner to share.
    expect(approved.token).toBeNull();

    // Without the verifier, never a token; a wrong one is refused.
    expect(await status(id)).toEqual({ handshakeId: id, status: 'approved' });
    await expect(status(id, proof().verifier)).rejects.toMatchObject({
      code: 'HANDSHAKE_PROOF_MISMATCH',
      status: 403,
    });

    const collected = await status(id, verifier);
    expect(collected).toEqual({
      handshakeId: id,
      status: 'approved',
      tokenCollected: true,
      token: {
        accessToken: expect.stringMatching(/^pag_ht_/),
        tokenType: 'Bearer',
        agentId: approved.agent.id,
        scopes: ['read'],
        dailyLimit: 50,
        monthlyLimit: null,
        expiresAt: expect.any(String),
      },
    });
    // The token's own expiry: the agent's, to the whole second below (oidc-provider counts seconds).
    const lag = (approved.agent.expiresAt?.getTime() ?? 0) - Date.parse(collected.token?.expiresAt ?? '');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(2000);
    const token = collected.token?.accessToken ?? '';
    expect(await (await introspect(t.url, token, RESOURCE_SERVER)).json()).toMatchObject({
      active: true,
      scope: 'read',
      token_kind: 'handshake',
      agent_id: approved.agent.id,
    });

    // Never again, with the verifier or without.
    expect(await status(id, verifier)).toEqual({ handshakeId: id, status: 'approved', tokenCollected: true });
    expect(await status(id)).toEqual({ handshakeId: id, status: 'approved', tokenCollected: true });

    const event = await inbox.next('handshake.collect', (item) => item.target === id);
    expect(event).toMatchObject({
      source: 'auth',
      requestId: `poll-${id}`,
      accountId: owner,
      agentId: approved.agent.id,
      clientId: approved.agent.clientId,
      actor: { type: 'agent', id: approved.agent.id },
      decision: 'allowed',
      detail: { scopes: 'read', dailyLimit: 50 },
    });
    expect(JSON.stringify(event)).not.toContain(token);
    expect(JSON.stringify(event)).not.toContain(verifier);
  });

  test('concurrent pickups: exactly one gets the token', async () => {
    const { verifier, challenge } = proof();
    const { handshakeId } = await create(withProof(challenge));
    await store.approve(owner, handshakeId, {}, byOperator());
    const answers = await Promise.all(Array.from({ length: 6 }, () => status(handshakeId, verifier)));
    expect(answers.filter((answer) => answer.token !== undefined)).toHaveLength(1);
    for (const answer of answers) expect(answer).toMatchObject({ status: 'approved', tokenCollected: true });
  });

  test('a wrong verifier is refused the same way while pending and after a denial', async () => {
    const { challenge } = proof();
    const { handshakeId } = await create(withProof(challenge));
    const refusal = { code: 'HANDSHAKE_PROOF_MISMATCH', status: 403 };
    await expect(status(handshakeId, proof().verifier)).rejects.toMatchObject(refusal);
    await store.deny(owner, handshakeId, byOperator());
    await expect(status(handshakeId, proof().verifier)).rejects.toMatchObject(refusal);
  });

  test('a token revoked before pickup is never collected: the status reads denied', async () => {
    const { verifier, challenge } = proof();
    const { handshakeId } = await create(withProof(challenge));
    const { agent } = await store.approve(owner, handshakeId, {}, byOperator());
    await t.auth.core.agents.revoke(owner, agent.id, byOperator());
    expect(await status(handshakeId, verifier)).toEqual({ handshakeId, status: 'denied' });
  });

  test('a header that cannot be a verifier is 400 naming it', async () => {
    const { handshakeId } = await create(withProof(proof().challenge));
    await expect(status(handshakeId, 'too short')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('Handshake-Verifier'),
    });
  });
});

describe('without a proof', () => {
  test('the owner is shown the token; the status never carries one, and any verifier is refused', async () => {
    const { handshakeId } = await create();
    const { token } = await store.approve(owner, handshakeId, {}, byOperator());
    expect(token?.value).toMatch(/^pag_ht_/);
    expect(await status(handshakeId)).toEqual({ handshakeId, status: 'approved' });
    await expect(status(handshakeId, proof().verifier)).rejects.toMatchObject({
      code: 'HANDSHAKE_PROOF_MISMATCH',
    });
  });
});
