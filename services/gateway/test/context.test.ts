/**
 * GET /api/v1/gateway/context: parts gathered in parallel over the bus (handlers on the in-memory
 * bus stand in for the brain and the proxy), each part that cannot be had reported inside a 200.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext, MemoryEntry, ServiceList } from '@pag/contracts';
import {
  AppError,
  BrainSubjects,
  endpointsForScopes,
  GatewayContext,
  MessageHeaders,
  ProxySubjects,
  routeById,
} from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import { availabilityOf } from '../src/domain/availability.ts';
import { readableParts } from '../src/routes/gateway-context.ts';
import type { TokenGateway } from './start-token-gateway.ts';
import { startTokenGateway } from './start-token-gateway.ts';

const PART_TIMEOUT_MS = 300;

/** The endpoints the context lists for these scopes while no service announced itself (as here). */
function endpointsWhileAlone(scopes: string[]) {
  return endpointsForScopes(scopes)
    .filter((endpoint) => endpoint.allowed)
    .map((endpoint) => ({ ...endpoint, ...availabilityOf(routeById(endpoint.id), new Set()) }));
}

const memory: MemoryEntry[] = [
  { id: 'mem_2', content: 'Prefers mornings.', agentId: 'agent_1', createdAt: '2026-11-02T09:00:00.000Z' },
  { id: 'mem_1', content: 'Lives in Berlin.', agentId: null, createdAt: '2026-11-01T09:00:00.000Z' },
];
const brainContext: BrainContext = {
  persona: {
    id: 'per_1',
    name: 'Assistant',
    description: null,
    soul_content: 'Be brief. Ask before booking anything.',
    active: true,
  },
  user: {
    name: 'Alice',
    email: 'alice@example.test',
    timezone: 'Europe/Berlin',
    locale: 'de-DE',
    summary: null,
  },
  memoryJson: JSON.stringify(memory),
  memoryVersion: '2',
  memoryCount: 2,
};
const services: ServiceList = {
  services: [
    {
      name: 'github',
      displayName: 'GitHub',
      status: 'connected',
      health: 'healthy',
      connectedAt: '2026-11-01T10:00:00.000Z',
    },
  ],
};

let stack: TokenGateway;
const subscriptions: Subscription[] = [];

beforeAll(async () => {
  stack = await startTokenGateway({ CONTEXT_PART_TIMEOUT_MS: String(PART_TIMEOUT_MS) });
});
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

async function answer(subject: string, handler: (msg: BusMessage) => unknown): Promise<void> {
  subscriptions.push(await stack.gateway.bus.handle(subject, handler));
}

async function stopAnswering(): Promise<void> {
  for (const sub of subscriptions.splice(0)) await sub.close();
}

async function context(token: string) {
  const started = performance.now();
  const response = await fetch(`${stack.gateway.url}/api/v1/gateway/context`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = GatewayContext.parse(await response.json());
  return {
    status: response.status,
    body,
    ms: performance.now() - started,
    requestId: response.headers.get('x-request-id'),
  };
}

describe('GET /api/v1/gateway/context', () => {
  test('every part answered: persona with soul_content, owner, memory, services, endpoints', async () => {
    stack.issue('full-context', 'read chat');
    const seen: BusMessage[] = [];
    await answer(BrainSubjects.contextGet, (msg) => {
      seen.push(msg);
      return brainContext;
    });
    await answer(ProxySubjects.servicesList, (msg) => {
      seen.push(msg);
      return services;
    });
    try {
      const { status, body, requestId } = await context('full-context');
      expect(status).toBe(200);
      expect(body).toEqual({
        persona: brainContext.persona,
        user: brainContext.user,
        memory,
        memoryCount: brainContext.memoryCount,
        services: services.services,
        endpoints: endpointsWhileAlone(['read', 'chat']),
        unavailable: [],
      });
      expect(body.endpoints.find((e) => e.id === 'chat')?.allowed).toBe(true);
      // Only what the token may call is listed.
      expect(body.endpoints.find((e) => e.id === 'proxyPost')).toBeUndefined();
      // Both asked with the caller's identity and this request's id.
      expect(seen).toHaveLength(2);
      for (const msg of seen) {
        expect(msg.headers).toMatchObject({
          [MessageHeaders.requestId]: requestId,
          [MessageHeaders.accountId]: 'acc-1',
          [MessageHeaders.agentId]: 'agt_1',
          [MessageHeaders.scopes]: 'read chat',
        });
      }
    } finally {
      await stopAnswering();
    }
  });

  test('a running service that cannot answer is reported in its own words, not as not running', async () => {
    stack.issue('brain-cannot', 'read');
    await answer(BrainSubjects.contextGet, () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The auth service is not running.', { expose: true });
    });
    await answer(ProxySubjects.servicesList, () => services);
    try {
      const { status, body } = await context('brain-cannot');
      expect(status).toBe(200);
      expect(body.unavailable).toContainEqual({
        part: 'user',
        service: 'brain',
        code: 'SERVICE_UNAVAILABLE',
        message: 'The brain service cannot answer: The auth service is not running.',
      });
    } finally {
      await stopAnswering();
    }
  });

  test('a fresh account: empty memory, no services, endpoints filtered by the scopes', async () => {
    stack.issue('fresh', 'knowledge');
    await answer(BrainSubjects.contextGet, () => ({ ...brainContext, persona: null, memoryJson: '[]' }));
    await answer(ProxySubjects.servicesList, () => ({ services: [] }));
    try {
      const { status, body } = await context('fresh');
      expect(status).toBe(200);
      expect(body).toMatchObject({ persona: null, memory: [], services: [], unavailable: [] });
      expect(body.endpoints.map((e) => e.id)).toContain('knowledgeBase');
      expect(body.endpoints.every((e) => e.allowed)).toBe(true);
      expect(body.endpoints.find((e) => e.id === 'chat')).toBeUndefined();
    } finally {
      await stopAnswering();
    }
  });

  test('the proxy not running: services unavailable, the brain parts still there', async () => {
    stack.issue('no-proxy', 'read');
    await answer(BrainSubjects.contextGet, () => brainContext);
    try {
      const { status, body } = await context('no-proxy');
      expect(status).toBe(200);
      expect(body.persona?.soul_content).toBe(brainContext.persona?.soul_content);
      expect(body.memory).toEqual(memory);
      expect(body.services).toBeNull();
      expect(body.unavailable).toEqual([
        {
          part: 'services',
          service: 'proxy',
          code: 'SERVICE_UNAVAILABLE',
          message: 'The proxy service is not running.',
        },
      ]);
    } finally {
      await stopAnswering();
    }
  });

  test('a silent brain: its parts time out after the part timeout, services still there', async () => {
    stack.issue('slow-brain', 'read');
    const late = Promise.withResolvers<void>();
    await answer(BrainSubjects.contextGet, async () => {
      await late.promise;
      return brainContext;
    });
    await answer(ProxySubjects.servicesList, () => services);
    try {
      const { status, body, ms } = await context('slow-brain');
      expect(status).toBe(200);
      expect(ms).toBeLessThan(PART_TIMEOUT_MS + 1_000);
      expect(body).toMatchObject({ persona: null, user: null, memory: null, services: services.services });
      expect(body.unavailable.map(({ part, service, code }) => ({ part, service, code }))).toEqual(
        ['persona', 'user', 'memory'].map((part) => ({ part, service: 'brain', code: 'UPSTREAM_TIMEOUT' })),
      );
    } finally {
      late.resolve();
      await stopAnswering();
    }
  });

  test('nothing running: still 200, every part unavailable, the endpoints listed', async () => {
    stack.issue('alone', 'read');
    const { status, body } = await context('alone');
    expect(status).toBe(200);
    expect(body.unavailable.map((u) => u.part)).toEqual(['persona', 'user', 'memory', 'services']);
    expect(body.endpoints).toEqual(endpointsWhileAlone(['read']));
    // No service announced itself here: the brain's endpoints say so, the gateway's own do not.
    expect(body.endpoints.find((e) => e.id === 'writeMemory')).toMatchObject({
      available: false,
      reason: 'The brain service is not running.',
    });
    expect(body.endpoints.find((e) => e.id === 'tokenCapabilities')?.available).toBe(true);
  });

  test('a reply that breaks its schema is UPSTREAM_ERROR, not passed on', async () => {
    stack.issue('bad-reply', 'read');
    await answer(BrainSubjects.contextGet, () => ({ persona: null, user: { name: 42 }, memoryJson: '[]' }));
    await answer(ProxySubjects.servicesList, () => services);
    try {
      const { status, body } = await context('bad-reply');
      expect(status).toBe(200);
      expect(body.user).toBeNull();
      expect(body.unavailable.map((u) => u.code)).toEqual([
        'UPSTREAM_ERROR',
        'UPSTREAM_ERROR',
        'UPSTREAM_ERROR',
      ]);
    } finally {
      await stopAnswering();
    }
  });

  test('the memory is passed on as the brain wrote it, and a memory that is not an array is refused', async () => {
    stack.issue('memory-text', 'read');
    // Spaces and key order as a service might write them: the gateway does not write it again.
    const memoryJson =
      '[ {"id":"mem_9","content":"as written","agentId":null,"createdAt":"2026-11-03T09:00:00.000Z"} ]';
    let reply: unknown = { ...brainContext, memoryJson };
    await answer(BrainSubjects.contextGet, () => reply);
    await answer(ProxySubjects.servicesList, () => services);
    try {
      const response = await fetch(`${stack.gateway.url}/api/v1/gateway/context`, {
        headers: { authorization: 'Bearer memory-text' },
      });
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await response.text();
      expect(text).toContain(
        `"user":${JSON.stringify(brainContext.user)},"memory":${memoryJson},"memoryCount":2,`,
      );
      expect(GatewayContext.parse(JSON.parse(text)).memory).toEqual(JSON.parse(memoryJson));

      reply = { ...brainContext, memoryJson: '{"id":"mem_9"}' };
      const { status, body } = await context('memory-text');
      expectBrainPartsRefused(status, body);
    } finally {
      await stopAnswering();
    }
  });

  test('without a token: 401, nothing asked', async () => {
    const response = await fetch(`${stack.gateway.url}/api/v1/gateway/context`);
    expect(response.status).toBe(401);
  });
});

/** A brain reply the gateway refused: 200, the brain's parts null and listed as UPSTREAM_ERROR. */
function expectBrainPartsRefused(status: number, body: Awaited<ReturnType<typeof context>>['body']): void {
  expect(status).toBe(200);
  expect(body).toMatchObject({ persona: null, user: null, memory: null, memoryCount: null });
  expect(body.unavailable.map((u) => [u.part, u.code])).toEqual([
    ['persona', 'UPSTREAM_ERROR'],
    ['user', 'UPSTREAM_ERROR'],
    ['memory', 'UPSTREAM_ERROR'],
  ]);
}

describe('an unchanged memory is not sent again', () => {
  test('the brain is asked with the version the gateway has, and its copy answers when the brain leaves the text out', async () => {
    stack.issue('kept-memory', 'read', { sub: 'acc-kept', account_id: 'acc-kept' });
    // A brain as the real one: the memory's text only when the version asked with is not its own.
    let current = { version: '1000', json: JSON.stringify(memory) };
    const asked: unknown[] = [];
    await answer(BrainSubjects.contextGet, (msg) => {
      const { query } = msg.data as { query: { memoryVersion?: string } };
      asked.push(query.memoryVersion);
      const memoryJson = query.memoryVersion === current.version ? null : current.json;
      return { ...brainContext, memoryJson, memoryVersion: current.version };
    });
    await answer(ProxySubjects.servicesList, () => services);
    try {
      expect((await context('kept-memory')).body.memory).toEqual(memory);
      expect((await context('kept-memory')).body.memory).toEqual(memory);
      const [newest] = memory;
      current = { version: '1001', json: JSON.stringify([newest]) };
      expect((await context('kept-memory')).body.memory).toEqual([newest]);
      expect((await context('kept-memory')).body.memory).toEqual([newest]);
      expect(asked).toEqual([undefined, '1000', '1000', '1001']);
    } finally {
      await stopAnswering();
    }
  });

  test('the answer is byte for byte the JSON of its parts, fresh or kept, with text of more bytes than characters', async () => {
    stack.issue('utf8-memory', 'read', { sub: 'acc-utf8', account_id: 'acc-utf8' });
    // Emoji (4 bytes, 2 UTF-16 units), accents (2 bytes) and a CJK character (3 bytes) in every part
    // the gateway writes or splices: the Content-Length and the bytes must be the UTF-8 ones.
    const entries: MemoryEntry[] = Array.from({ length: 200 }, (_, n) => ({
      id: `mem_${n}`,
      content: `Note ${n}: café crème, naïve Zoë 🎉🧠 東 — ${'é'.repeat(n % 7)}`,
      agentId: n % 2 === 0 ? 'agt_1' : null,
      createdAt: '2026-11-02T09:00:00.000Z',
    }));
    const persona = {
      ...brainContext.persona,
      soul_content: 'Sei höflich 😊, antworte kurz.',
    } as BrainContext['persona'];
    const owner = { ...brainContext.user, name: 'Zoë Ångström 🌍' } as BrainContext['user'];
    const memoryJson = JSON.stringify(entries);
    // What the brain and the proxy answer now; the memory itself stays at one version throughout.
    let now = { user: owner, memoryCount: 100_000, services: services.services };
    await answer(BrainSubjects.contextGet, (msg) => {
      const { query } = msg.data as { query: { memoryVersion?: string } };
      const { user, memoryCount } = now;
      const reply = { ...brainContext, persona, user, memoryVersion: '41', memoryCount };
      return { ...reply, memoryJson: query.memoryVersion === '41' ? null : memoryJson };
    });
    await answer(ProxySubjects.servicesList, () => ({ services: now.services }));
    const endpoints = endpointsWhileAlone(['read']);
    const rounds = [
      // The memory as the brain sent it, then the gateway's copy (twice: its last answer again).
      { round: 'sent', ...now },
      { round: 'kept', ...now },
      { round: 'kept again', ...now },
      // Every other part still written as it is now, the memory the same bytes.
      {
        round: 'services changed',
        ...now,
        services: services.services.map((service) => ({
          ...service,
          displayName: `${service.displayName} ✓`,
        })),
      },
      { round: 'count changed', ...now, memoryCount: 100_001 },
      { round: 'owner changed', ...now, user: { ...owner, summary: 'Mag Käse 🧀' } },
      { round: 'as at first', ...now },
    ];
    expect(Buffer.byteLength(memoryJson)).toBeGreaterThan(memoryJson.length + 2_000);
    try {
      for (const { round, ...parts } of rounds) {
        now = parts;
        const { user, memoryCount, services } = parts;
        const expected = Buffer.from(
          JSON.stringify({
            persona,
            user,
            memory: entries,
            memoryCount,
            services,
            endpoints,
            unavailable: [],
          }),
        );
        const response = await fetch(`${stack.gateway.url}/api/v1/gateway/context`, {
          headers: { authorization: 'Bearer utf8-memory' },
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        expect({ round, status: response.status }).toEqual({ round, status: 200 });
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect({ round, length: response.headers.get('content-length') }).toEqual({
          round,
          length: String(expected.length),
        });
        expect({ round, text: bytes.toString() }).toEqual({ round, text: expected.toString() });
        expect(bytes.equals(expected)).toBe(true);
      }
    } finally {
      await stopAnswering();
    }
  });

  test('a brain that leaves out a memory the gateway did not ask with makes its parts unavailable', async () => {
    stack.issue('unknown-memory', 'read', { sub: 'acc-unknown', account_id: 'acc-unknown' });
    await answer(BrainSubjects.contextGet, () => ({ ...brainContext, memoryJson: null, memoryVersion: '7' }));
    await answer(ProxySubjects.servicesList, () => services);
    try {
      const { status, body } = await context('unknown-memory');
      expectBrainPartsRefused(status, body);
    } finally {
      await stopAnswering();
    }
  });
});

describe('which parts a token may read', () => {
  test('each part follows the scope of the route listing the same data (today: any valid token)', () => {
    expect([...readableParts([])]).toEqual(['persona', 'user', 'memory', 'services']);
  });
});
