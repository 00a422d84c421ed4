/**
 * Issue 5's acceptance, as an operator and an agent would do it: an owner made with `pag owner
 * create`, a token with `pag token create` (scope read, daily limit 6); the context of the fresh
 * account in one call (the default persona, the owner's identity, empty memory, no services, the
 * endpoints filtered by the token's scopes, nothing unavailable); a memory note written through
 * the API appears in it, newest first, for this owner only; the request over the limit is 429
 * with Retry-After and the RateLimit fields.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { endpointsForScopes, GatewayContext } from '@pag/contracts';
import { DEFAULT_PERSONA } from '../../../services/brain/src/domain/default-persona.ts';
import type { StoryTarget } from './target.ts';

const ALICE = { email: 'alice@context.test', password: 'alice long password' };
const BOB = { email: 'bob@context.test', password: 'bob long password here' };
const DAILY = 6;

export function contextStory(target: StoryTarget): void {
  const call = (token: string, path: string, init: RequestInit = {}) =>
    target.fetch(`${target.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });

  async function contextOf(token: string): Promise<GatewayContext> {
    const response = await call(token, '/api/v1/gateway/context');
    expect(response.status).toBe(200);
    return GatewayContext.parse(await response.json());
  }

  describe('context and memory', () => {
    let aliceToken: string;
    let bobToken: string;
    beforeAll(async () => {
      for (const owner of [ALICE, BOB])
        await target.pag('owner', 'create', '--email', owner.email, '--password', owner.password);
      const token = async (owner: string, ...limits: string[]) =>
        (
          await target.pag(
            'token',
            'create',
            '--owner',
            owner,
            '--name',
            'ctx',
            '--scopes',
            'read',
            ...limits,
          )
        ).at(-1) ?? '';
      aliceToken = await token(ALICE.email, '--daily', String(DAILY));
      bobToken = await token(BOB.email);
      // Four `pag` commands: against containers each is a container of its own, started on a busy machine.
    }, 180_000);

    test('a fresh account, then a note, then the limit (requests counted: 6 pass, the 7th is 429)', async () => {
      // 1: the fresh account's context.
      expect(await contextOf(aliceToken)).toEqual({
        persona: {
          id: expect.stringMatching(/^per_/),
          name: DEFAULT_PERSONA.name,
          description: DEFAULT_PERSONA.description,
          soul_content: DEFAULT_PERSONA.soulContent,
          active: true,
        },
        user: { name: 'alice', email: ALICE.email, timezone: null, locale: null, summary: null },
        memory: [],
        memoryCount: 0,
        services: [],
        // What the token may call, each served by a running service (docs/adr/0062).
        endpoints: endpointsForScopes(['read'])
          .filter((endpoint) => endpoint.allowed)
          .map((endpoint) => ({ ...endpoint, available: true })),
        unavailable: [],
      });
      // 2, 3: two notes.
      for (const content of ['Prefers mornings.', 'Lives in Berlin.']) {
        const written = await call(aliceToken, '/api/v1/memory', {
          method: 'POST',
          body: JSON.stringify({ content }),
        });
        expect(written.status).toBe(201);
      }
      // 4: newest first, with ids and times.
      const { memory, memoryCount } = await contextOf(aliceToken);
      expect(memoryCount).toBe(2);
      expect(memory?.map((entry) => entry.content)).toEqual(['Lives in Berlin.', 'Prefers mornings.']);
      expect(memory?.[0]).toEqual({
        id: expect.stringMatching(/^mem_/),
        content: 'Lives in Berlin.',
        agentId: expect.stringMatching(/^ag_/),
        createdAt: expect.any(String),
      });
      // Bob's token (not counted against Alice's limit): his own empty memory.
      const bobs = await contextOf(bobToken);
      expect([bobs.memory, bobs.memoryCount]).toEqual([[], 0]);
      // 5, 6: the last two within the limit.
      expect((await call(aliceToken, '/api/v1/identity')).status).toBe(200);
      expect((await call(aliceToken, '/api/v1/personas')).status).toBe(200);
      // 7: over the limit.
      const refused = await call(aliceToken, '/api/v1/gateway/context');
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('USAGE_LIMIT_EXCEEDED');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-policy')).toBe(`"daily";q=${DAILY};w=86400`);
      expect(refused.headers.get('ratelimit')).toBe(`"daily";r=0;t=${retryAfter}`);
    });
  });
}
