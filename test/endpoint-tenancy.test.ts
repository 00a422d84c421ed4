/**
 * The tenancy contract of every bus endpoint that acts for an account, driven by the contracts'
 * endpoint list and route table: each such endpoint is asked on the real service (PostgreSQL, the
 * in-memory bus) the way the gateway asks, and must
 * - refuse a message without the account header, or with one that is not a UUID (401);
 * - re-check its route's scope from the route table (403 when the scopes header lacks it);
 * - never answer with another account's rows: after account A has data behind every endpoint,
 *   account B sees exactly what a fresh account sees, and nothing of A.
 * A new endpoint is covered by being declared: one that skips a check fails here, and so does an
 * endpoint of a service this test does not start yet, or one nobody serves without being listed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AnyEndpoint } from '@pag/contracts';
import {
  AppError,
  BrainEndpoints,
  EndpointList,
  MessageHeaders,
  requiredScope,
  routeById,
  TriggerEndpoints,
} from '@pag/contracts';
import { addDocument, addPersona } from '../services/brain/test/support/seed.ts';
import type { TestBrain } from '../services/brain/test/support/start-test-brain.ts';
import { startTestBrain } from '../services/brain/test/support/start-test-brain.ts';
import type { TestProxy } from '../services/proxy/test/support/start-test-proxy.ts';
import { startTestProxy } from '../services/proxy/test/support/start-test-proxy.ts';
import type { TestTrigger } from '../services/trigger/test/support/start-test-trigger.ts';
import { startTestTrigger } from '../services/trigger/test/support/start-test-trigger.ts';
import { NOT_SERVED_YET } from './support/not-served-yet.ts';

/** A valid body for each endpoint that takes one (the rest take null). */
const SAMPLE_BODIES: Readonly<Record<string, unknown>> = {
  [BrainEndpoints.memoryCreate.subject]: { content: 'a note of the caller' },
  // MARK (declared below): the offline brain (no provider here) quotes A's marked document to A only.
  [BrainEndpoints.chatSend.subject]: { message: 'tenant-a-mark' },
  [TriggerEndpoints.triggersCreate.subject]: {
    name: 'Morning digest',
    kind: 'schedule',
    schedule: { type: 'daily', atHour: 8, atMinute: 30 },
    timezone: 'Europe/Berlin',
    actionType: 'ai_prompt',
    action: { prompt: 'Plan my day.', services: [] },
  },
};

/**
 * What a handler needs of its caller beyond the route's scope: a trigger is created by an agent
 * with `chat` (the trigger service's own checks, tested in services/trigger/test).
 */
const CALLER_AGENT = 'ag_tenancy';
const HANDLER_SCOPES: Readonly<Record<string, string>> = {
  [TriggerEndpoints.triggersCreate.subject]: 'chat',
};

/** The trigger endpoints that name one trigger (A's, once A's seed made it). */
const TRIGGER_ITEM_SUBJECTS = [
  TriggerEndpoints.triggerGet,
  TriggerEndpoints.triggersRun,
  TriggerEndpoints.runsList,
  TriggerEndpoints.triggerPause,
  TriggerEndpoints.triggerResume,
  TriggerEndpoints.triggerDelete,
].map((endpoint) => endpoint.subject);

/** A's memory entry (seeded with this id): B deleting it must be 404, and it must stay. */
const A_MEMORY_ID = 'mem_tenant-a-entry';

/** Path parameters of an endpoint that names a resource: A's (for anyone else the answer is 404). */
const SAMPLE_PARAMS: Record<string, Record<string, string>> = {
  [BrainEndpoints.memoryDelete.subject]: { id: A_MEMORY_ID },
  // Until A's seed has started a conversation (and put its id here), one that exists nowhere.
  [BrainEndpoints.conversationGet.subject]: { id: 'conv_AAAAAAAAAAAAAAAAAAAAAA' },
  // Until A's seed has made a trigger (and put its id here), one that exists nowhere.
  ...Object.fromEntries(
    TRIGGER_ITEM_SUBJECTS.map((subject) => [subject, { id: 'trg_AAAAAAAAAAAAAAAAAAAAAA' }]),
  ),
};

/** What A leaves behind every endpoint; B must never see it. */
const MARK = 'tenant-a-mark';

interface Served {
  bus: TestBrain['bus'] | TestProxy['bus'] | TestTrigger['bus'];
  /** A fresh account of this service's world (the brain's needs an owner account at auth). */
  newAccount(email: string): string;
  /** Puts data of the account behind each of the service's endpoints. */
  seed(accountId: string): Promise<void>;
}

let brain: TestBrain;
let proxy: TestProxy;
let trigger: TestTrigger;
const served = new Map<string, Served>();

beforeAll(async () => {
  [brain, proxy, trigger] = await Promise.all([startTestBrain(), startTestProxy(), startTestTrigger()]);
  served.set('brain', {
    bus: brain.bus,
    newAccount: (email) => brain.auth.addAccount(email),
    seed: async (accountId) => {
      await brain.ask(BrainEndpoints.memoryCreate.subject, { accountId }, { body: { content: MARK } });
      await brain.db.memoryEntry.create({ data: { id: A_MEMORY_ID, accountId, content: MARK } });
      await addPersona(brain.db, accountId, { name: MARK });
      await addDocument(brain.db, accountId, { title: MARK, kind: 'notes', content: MARK });
      const chat = await brain.ask<{ conversationId: string }>(
        BrainEndpoints.chatSend.subject,
        { accountId },
        {
          body: { message: MARK },
        },
      );
      SAMPLE_PARAMS[BrainEndpoints.conversationGet.subject] = { id: chat.conversationId };
    },
  });
  served.set('proxy', {
    bus: proxy.bus,
    newAccount: () => randomUUID(),
    seed: async (accountId) => {
      await proxy.operator.storeApiKeyConnection({
        accountId,
        service: 'github',
        label: MARK,
        value: 'ghp_secret',
      });
    },
  });
  served.set('trigger', {
    bus: trigger.bus,
    newAccount: () => randomUUID(),
    seed: async (accountId) => {
      const made = await trigger.ask<{ id: string }>(
        TriggerEndpoints.triggersCreate.subject,
        { accountId, agentId: CALLER_AGENT, scopes: 'chat' },
        { body: { ...(SAMPLE_BODIES[TriggerEndpoints.triggersCreate.subject] as object), name: MARK } },
      );
      await trigger.ask(
        TriggerEndpoints.triggersRun.subject,
        { accountId, agentId: CALLER_AGENT },
        { params: { id: made.id } },
      );
      for (const subject of TRIGGER_ITEM_SUBJECTS) SAMPLE_PARAMS[subject] = { id: made.id };
    },
  });
}, 120_000);
afterAll(async () => {
  await brain?.close();
  await proxy?.[Symbol.asyncDispose]();
  await trigger?.close();
});

const accountEndpoints = EndpointList.filter((endpoint) => endpoint.caller === 'account');

function messageOf(endpoint: AnyEndpoint) {
  return {
    params: SAMPLE_PARAMS[endpoint.subject] ?? {},
    query: {},
    body: SAMPLE_BODIES[endpoint.subject] ?? null,
  };
}

/** The scope the route asks for, or null when a valid token is enough. */
function scopeOf(endpoint: AnyEndpoint): string | null {
  const route = routeById(endpoint.routeId ?? '');
  return requiredScope(route, messageOf(endpoint).params, route.method);
}

async function ask(endpoint: AnyEndpoint, headers: Record<string, string | undefined>): Promise<unknown> {
  const service = served.get(endpoint.to);
  if (service === undefined) throw new Error(`No ${endpoint.to} service started by this test.`);
  const scopes = headers[MessageHeaders.scopes];
  const handlerScopes = HANDLER_SCOPES[endpoint.subject];
  const present = Object.entries({
    [MessageHeaders.requestId]: 'tenancy',
    // The trigger service's callers are agents (a trigger runs as the one that made it).
    ...(endpoint.to === 'trigger' ? { [MessageHeaders.agentId]: CALLER_AGENT } : {}),
    ...headers,
    ...(scopes !== undefined && handlerScopes !== undefined
      ? { [MessageHeaders.scopes]: `${scopes} ${handlerScopes}`.trim() }
      : {}),
  }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return service.bus.request(endpoint.subject, messageOf(endpoint), {
    timeoutMs: 10_000,
    headers: Object.fromEntries(present),
  });
}

/** The bus's own "nobody listens" (kit's BusNoRespondersError; the root tests do not depend on kit). */
const isNoResponders = (error: unknown) => error instanceof Error && error.name === 'BusNoRespondersError';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    (reply) => ({ answered: reply }),
    (error: unknown) => (error instanceof AppError ? { code: error.code } : { thrown: String(error) }),
  );

test('every endpoint acting for an account is either served here or listed as not served yet', async () => {
  for (const endpoint of accountEndpoints) {
    const status = !served.has(endpoint.to)
      ? 'not served'
      : await ask(endpoint, { [MessageHeaders.accountId]: randomUUID() }).then(
          () => 'served',
          (error: unknown) => (isNoResponders(error) ? 'not served' : 'served'),
        );
    expect({ subject: endpoint.subject, status }).toEqual({
      subject: endpoint.subject,
      status: NOT_SERVED_YET.has(endpoint.subject) ? 'not served' : 'served',
    });
  }
});

const isRead = (endpoint: AnyEndpoint) => routeById(endpoint.routeId ?? '').method === 'GET';
/** Reads first: a write of B's must not change what B's reads are compared with. */
const servedEndpoints = accountEndpoints
  .filter((endpoint) => !NOT_SERVED_YET.has(endpoint.subject))
  .sort((x, y) => Number(isRead(y)) - Number(isRead(x)));

describe.each(servedEndpoints.map((endpoint) => [endpoint.subject, endpoint] as const))(
  '%s',
  (_subject, endpoint) => {
    test('refuses a message without the account header, or with one that is not a UUID', async () => {
      const scopes = scopeOf(endpoint) ?? '';
      expect(await refusal(ask(endpoint, { [MessageHeaders.scopes]: scopes }))).toEqual({
        code: 'AUTHENTICATION_REQUIRED',
      });
      for (const malformed of ['acc-1', '', `${randomUUID()}x`, "' OR 1=1 --"]) {
        const headers = { [MessageHeaders.accountId]: malformed, [MessageHeaders.scopes]: scopes };
        expect(await refusal(ask(endpoint, headers))).toEqual({ code: 'AUTHENTICATION_REQUIRED' });
      }
    });

    test("re-checks the route's scope", async () => {
      // Past the checks: an answer, or NOT_FOUND for the id of another account's resource.
      const passed =
        SAMPLE_PARAMS[endpoint.subject] === undefined
          ? { answered: expect.anything() }
          : { code: 'NOT_FOUND' };
      const service = served.get(endpoint.to);
      const accountId = service?.newAccount('scope@tenancy.test') ?? randomUUID();
      const needed = scopeOf(endpoint);
      const withScopes = (scopes: string) =>
        refusal(ask(endpoint, { [MessageHeaders.accountId]: accountId, [MessageHeaders.scopes]: scopes }));
      if (needed !== null) {
        expect(await withScopes('')).toEqual({ code: 'INSUFFICIENT_SCOPE' });
        expect(await withScopes('unrelated:read')).toEqual({ code: 'INSUFFICIENT_SCOPE' });
        expect(await withScopes(needed)).toEqual(passed);
      } else {
        expect(await withScopes('')).toEqual(passed);
      }
    });
  },
);

/** The reply with every persona id replaced by one placeholder. */
function samePersonaIds(reply: unknown): unknown {
  return JSON.parse(JSON.stringify(reply).replace(/"per_[A-Za-z0-9_-]{22}"/g, '"per_…"'));
}

describe("never another account's rows", () => {
  const accounts: Record<'a' | 'b' | 'fresh', Map<string, string>> = {
    a: new Map(),
    b: new Map(),
    fresh: new Map(),
  };
  beforeAll(async () => {
    for (const [name, service] of served) {
      accounts.a.set(name, service.newAccount(`${MARK}@tenancy.test`));
      // B and the fresh account share an email, so what the brain derives from it is the same.
      accounts.b.set(name, service.newAccount('someone@tenancy.test'));
      accounts.fresh.set(name, service.newAccount('someone@tenancy.test'));
      await service.seed(accounts.a.get(name) ?? '');
    }
  }, 60_000);

  const as = (who: 'a' | 'b' | 'fresh', endpoint: AnyEndpoint) =>
    ask(endpoint, {
      [MessageHeaders.accountId]: accounts[who].get(endpoint.to),
      [MessageHeaders.scopes]: scopeOf(endpoint) ?? '',
    });

  /** null for NOT_FOUND when the endpoint names A's resource (SAMPLE_PARAMS). */
  const asOrNotFound = (who: 'b' | 'fresh', endpoint: AnyEndpoint) =>
    as(who, endpoint).catch((error: unknown) => {
      if (SAMPLE_PARAMS[endpoint.subject] !== undefined && (error as AppError).code === 'NOT_FOUND')
        return null;
      throw error;
    });

  test('B sees what a fresh account sees, and nothing of A', async () => {
    expect(servedEndpoints.length).toBeGreaterThan(0);
    for (const endpoint of servedEndpoints) {
      // Naming A's resource (SAMPLE_PARAMS) is refused as if it did not exist.
      let seenByB = await asOrNotFound('b', endpoint);
      const text = JSON.stringify(seenByB);
      expect({ subject: endpoint.subject, leaksMark: text.includes(MARK) }).toEqual({
        subject: endpoint.subject,
        leaksMark: false,
      });
      expect(text).not.toContain(accounts.a.get(endpoint.to));
      if (!isRead(endpoint)) continue;
      // Reads: A's data shows for A (the seed reaches this endpoint), never for B. Each account
      // has its own default persona (same name and text, its own id): ids of personas are not compared.
      const seenByFresh = samePersonaIds(await asOrNotFound('fresh', endpoint));
      seenByB = samePersonaIds(seenByB);
      expect({ subject: endpoint.subject, reply: seenByB }).toEqual({
        subject: endpoint.subject,
        reply: seenByFresh,
      });
      expect({ subject: endpoint.subject, reply: await as('a', endpoint) }).not.toEqual({
        subject: endpoint.subject,
        reply: seenByFresh,
      });
    }
    expect(await brain.db.memoryEntry.count({ where: { id: A_MEMORY_ID } })).toBe(1);
  });
});
