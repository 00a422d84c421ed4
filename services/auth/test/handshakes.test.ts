/**
 * Handshakes over the bus (what the gateway dispatches) and through the store the dashboard and
 * the CLI use: the claim code rests only as a hash, the only owner gets new requests at once and
 * otherwise they wait to be claimed, creation is limited per address and owner queue and per
 * address and agentId (429 with Retry-After, counted in PostgreSQL, holding under concurrency), an unknown id is 404, approval
 * can only narrow the scopes and makes a working token once, and the status follows the token.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HandshakeCreated, HandshakeStatus } from '@pag/contracts';
import {
  AuthSubjects,
  HANDSHAKE_POLL_INTERVAL_SECONDS,
  HandshakeCreateRequest,
  MessageHeaders,
} from '@pag/contracts';
import { byOperator } from '../src/events/audit-decisions.ts';
import { DEFAULT_CREATION_LIMITS, PENDING_RETRY_SECONDS } from '../src/handshakes/creation-limits.ts';
import type { HandshakeStore } from '../src/store/handshake-store.ts';
import { createOwner, introspect } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let store: HandshakeStore;
beforeAll(async () => {
  t = await startTestAuth();
  store = t.auth.core.handshakes;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

let addresses = 0;
/** A client address of its own, so one test's creations do not count against another's. */
const freshAddress = () => `198.51.100.${++addresses}`;

let agents = 0;
const freshAgentId = () => `agent-${++agents}@test`;

function body(overrides: Record<string, unknown> = {}) {
  return {
    agentId: freshAgentId(),
    requestedScopes: ['read', 'availability'],
    message: 'Test agent; wants to read your calendar.',
    ...overrides,
  };
}

function create(payload: unknown, address = freshAddress()): Promise<HandshakeCreated> {
  return t.bus.request<HandshakeCreated>(
    AuthSubjects.handshakeCreate,
    { params: {}, query: {}, body: payload },
    {
      timeoutMs: 10_000,
      headers: { [MessageHeaders.clientAddress]: address, [MessageHeaders.requestId]: 'r' },
    },
  );
}

function status(handshakeId: string): Promise<HandshakeStatus> {
  return t.bus.request<HandshakeStatus>(
    AuthSubjects.handshakeStatus,
    { params: { handshakeId }, query: {}, body: null },
    { timeoutMs: 10_000 },
  );
}

const codeOf = (created: HandshakeCreated) => new URL(created.claimUrl).searchParams.get('code') ?? '';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let ownerA: string;
let ownerB: string;

describe('assignment and the claim code', () => {
  test('with no owner yet, a request waits unassigned; its code rests only as SHA-256', async () => {
    const created = await create(body());
    expect(created).toEqual({
      handshakeId: expect.stringMatching(/^hs_[A-Za-z0-9_-]{22}$/),
      status: 'pending',
      claimUrl: expect.stringMatching(
        new RegExp(`^${t.url}/dashboard/handshakes/claim\\?code=[A-Za-z0-9_-]{43}$`),
      ),
      tokenDelivery: 'owner',
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    });
    const row = await t.db.handshake.findUniqueOrThrow({ where: { id: created.handshakeId } });
    expect(row.accountId).toBeNull();
    expect(row.claimCodeHash).toBe(sha256(codeOf(created)));
    const everything = JSON.stringify(await t.db.handshake.findMany());
    expect(everything).not.toContain(codeOf(created));
    expect(everything).not.toContain('198.51.100.');
    expect(await status(created.handshakeId)).toEqual({
      handshakeId: created.handshakeId,
      status: 'pending',
      interval: HANDSHAKE_POLL_INTERVAL_SECONDS,
    });
  });

  test('the only owner receives a new request at once', async () => {
    ownerA = await createOwner(t.db);
    const created = await create(body());
    const row = await t.db.handshake.findUniqueOrThrow({ where: { id: created.handshakeId } });
    expect(row.accountId).toBe(ownerA);
    expect((await store.pending(ownerA)).map((h) => h.id)).toContain(created.handshakeId);
    // Opening its link changes nothing: it is already this owner's.
    expect((await store.claim(ownerA, created.claimUrl, byOperator())).id).toBe(created.handshakeId);
  });

  test('with two owners it is nobody’s until one claims it; the other then cannot', async () => {
    ownerB = await createOwner(t.db, { email: 'b@example.test', password: 'another long password' });
    const created = await create(body());
    expect(
      (await t.db.handshake.findUniqueOrThrow({ where: { id: created.handshakeId } })).accountId,
    ).toBeNull();
    expect((await store.pending(ownerA)).map((h) => h.id)).not.toContain(created.handshakeId);
    await expect(store.get(ownerB, created.handshakeId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.approve(ownerB, created.handshakeId, {}, byOperator())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const claimed = await store.claim(ownerB, codeOf(created), byOperator());
    expect(claimed).toMatchObject({ id: created.handshakeId, accountId: ownerB });
    const unknown = await store.claim(ownerA, 'x'.repeat(43), byOperator()).catch((error: unknown) => error);
    const taken = await store.claim(ownerA, codeOf(created), byOperator()).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: 'NOT_FOUND', message: (unknown as Error).message });
    expect((await store.pending(ownerB)).map((h) => h.id)).toEqual([created.handshakeId]);
  });
});

describe('status', () => {
  test.each([['hs_AAAAAAAAAAAAAAAAAAAAAA'], ['nope'], ['../../etc'], ['']])(
    '%j is 404 NOT_FOUND',
    async (id) => {
      await expect(status(id)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    },
  );
});

describe('creation limits', () => {
  const LIMITS = DEFAULT_CREATION_LIMITS;

  test('an address may create 30 per hour; the 31st is 429 with Retry-After and says when', async () => {
    const address = freshAddress();
    for (let i = 0; i < LIMITS.perClientPerQueuePerHour; i += 1) await create(body(), address);
    const refused = await create(body(), address).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const retryAfter = Number((refused as { headers: Record<string, string> }).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((refused as Error).message).toMatch(
      /at most 30 per hour for one owner\. Retry in \d+ s \(at \d{4}-.+Z\)\./,
    );
    // Another address is not affected; an hour later this one may create again.
    await create(body());
    const hash = sha256(`client:${address}`);
    await t.db.handshake.updateMany({
      where: { clientHash: hash },
      data: { createdAt: new Date(Date.now() - 61 * 60_000) },
    });
    await create(body(), address);
  });

  test("what an address sent to one owner's queue does not count for another's", async () => {
    const address = freshAddress();
    const sent = [];
    for (let i = 0; i < LIMITS.perClientPerQueuePerHour; i += 1) sent.push(await create(body(), address));
    await expect(create(body(), address)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // Owner A claims every one of them: they are in A's queue now, and the pool has room again.
    for (const created of sent) await store.claim(ownerA, codeOf(created), byOperator());
    await expect(create(body(), address)).resolves.toMatchObject({ status: 'pending' });
  });

  test('concurrent creations from one address cannot slip past the limit', async () => {
    const address = freshAddress();
    const results = await Promise.allSettled(
      Array.from({ length: LIMITS.perClientPerQueuePerHour + 4 }, () => create(body(), address)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LIMITS.perClientPerQueuePerHour);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'RATE_LIMITED' });
  });

  test('an agentId may have 3 pending at once and create 5 per hour from one address', async () => {
    const agentId = freshAgentId();
    const address = freshAddress();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await create(body({ agentId }), address)).handshakeId);
    const refused = await create(body({ agentId }), address).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('3 handshakes from your address waiting'),
    });
    // A place frees as soon as the owner decides: ask again soon, not when the oldest stops counting.
    const retryAfter = Number((refused as { headers: Record<string, string> }).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(PENDING_RETRY_SECONDS);

    // A decision frees a place (decided here in the table: these wait unassigned); the hourly limit holds.
    for (const id of ids.slice(0, 2)) {
      await t.db.handshake.update({ where: { id }, data: { status: 'denied', decidedAt: new Date() } });
      await create(body({ agentId }), address);
    }
    await t.db.handshake.update({
      where: { id: ids[2] ?? '' },
      data: { status: 'denied', decidedAt: new Date() },
    });
    const hourly = await create(body({ agentId }), address).catch((error: unknown) => error);
    expect(hourly).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('at most 5 per hour'),
    });
  });

  test('a client looping on its agentId behind a shared address does not block the others there', async () => {
    const ingress = freshAddress();
    const looping = freshAgentId();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () => create(body({ agentId: looping }), ingress)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(LIMITS.pendingPerClientAgent);
    // Other agents behind the same address, and the same agentId from elsewhere, still get through.
    for (let i = 0; i < 5; i += 1) await create(body(), ingress);
    await expect(create(body({ agentId: looping }), freshAddress())).resolves.toMatchObject({
      status: 'pending',
    });
  });

  test('a pending request stops counting toward its agentId after 24 hours', async () => {
    const agentId = freshAgentId();
    const address = freshAddress();
    for (let i = 0; i < 3; i += 1) await create(body({ agentId }), address);
    await expect(create(body({ agentId }), address)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await t.db.handshake.updateMany({
      where: { agentRef: agentId },
      data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
    });
    await expect(create(body({ agentId }), address)).resolves.toMatchObject({ status: 'pending' });
  });

  test('the API documentation states the limits enforced', () => {
    expect(HandshakeCreateRequest.description).toContain(
      `per client address (${LIMITS.perClientPerQueuePerHour} per hour to one owner) and per agentId ` +
        `from one address (${LIMITS.pendingPerClientAgent} pending at once, ${LIMITS.perClientAgentPerHour} per hour)`,
    );
  });

  test('a body the gateway would refuse is refused here too, naming the field', async () => {
    await expect(create({ ...body(), requestedScopes: ['full'] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('requestedScopes'),
    });
  });
});

describe('deciding', () => {
  /** A pending handshake of owner B (two owners exist from here on: created, then claimed). */
  async function pendingOfB(scopes = ['read', 'availability']) {
    const created = await create(body({ requestedScopes: scopes }));
    await store.claim(ownerB, codeOf(created), byOperator());
    return created.handshakeId;
  }

  const answer = async (token: string) =>
    (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as Record<string, unknown>;

  test('approval narrows the scopes, sets limits, and makes one working token; the status follows it', async () => {
    const id = await pendingOfB();
    const { handshake, agent, token } = await store.approve(
      ownerB,
      id,
      {
        scopes: ['read'],
        dailyLimit: 100,
      },
      byOperator(),
    );
    expect(handshake).toMatchObject({ status: 'approved', agentId: agent.id, accountId: ownerB });
    expect(agent).toMatchObject({ kind: 'handshake', scopes: ['read'], dailyLimit: 100, monthlyLimit: null });
    expect(agent.name).toBe((await t.db.handshake.findUniqueOrThrow({ where: { id } })).agentRef);
    // Without a codeChallenge the owner is given the token to share.
    if (token === null) throw new Error('approval without a proof made no token to share');
    expect(await answer(token.value)).toMatchObject({
      active: true,
      scope: 'read',
      account_id: ownerB,
      token_kind: 'handshake',
      agent_id: agent.id,
      limit_daily: 100,
    });
    expect(await status(id)).toEqual({ handshakeId: id, status: 'approved' });

    await t.auth.core.agents.revoke(ownerB, agent.id, byOperator());
    expect(await answer(token.value)).toEqual({ active: false });
    expect(await status(id)).toEqual({ handshakeId: id, status: 'denied' });
  });

  test.each([
    [{ scopes: ['read', 'full'] }, /"full" was not requested/],
    [{ scopes: [] }, /at least one scope/],
    [{ dailyLimit: 0 }, /daily limit/],
  ])(
    'approval with %j is refused and leaves the request pending, with no agent',
    async (approval, message) => {
      const id = await pendingOfB(['read']);
      const before = await t.db.agent.count();
      await expect(store.approve(ownerB, id, approval, byOperator())).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(message),
      });
      expect(await status(id)).toMatchObject({ status: 'pending' });
      expect(await t.db.agent.count()).toBe(before);
    },
  );

  test('two approvals at once make one agent; a decided request cannot be decided again', async () => {
    const id = await pendingOfB();
    const before = await t.db.agent.count();
    const results = await Promise.allSettled([
      store.approve(ownerB, id, {}, byOperator()),
      store.approve(ownerB, id, {}, byOperator()),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'CONFLICT' });
    expect(await t.db.agent.count()).toBe(before + 1);
    await expect(store.deny(ownerB, id, byOperator())).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('denial reads denied; another owner can neither deny nor approve, and it stays pending', async () => {
    const id = await pendingOfB();
    await expect(store.deny(ownerA, id, byOperator())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.approve(ownerA, id, {}, byOperator())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await status(id)).toMatchObject({ status: 'pending' });
    await store.deny(ownerB, id, byOperator());
    expect(await status(id)).toEqual({ handshakeId: id, status: 'denied' });
    await expect(store.approve(ownerB, id, {}, byOperator())).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.decided(ownerB)).map((h) => h.id)).toContain(id);
    expect((await store.decided(ownerA)).map((h) => h.id)).not.toContain(id);
  });
});
