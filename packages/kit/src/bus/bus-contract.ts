/**
 * The one contract both buses are held to. Every test talks through the Bus interface only, and
 * "peers" are other connections to the same bus, so queue groups and durable consumers are
 * exercised across processes as in production. Waits are on events, never on time, except where
 * the behaviour under test is time itself (request timeout, ack wait).
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { describeEventContract } from './bus-contract-events.ts';
import { describeReplyStreamContract } from './bus-contract-reply-streams.ts';
import { describeRequestContract } from './bus-contract-requests.ts';
import { describeStreamContract } from './bus-contract-streams.ts';
import type { BusContractContext, BusFixture } from './bus-test-helpers.ts';
import { uniqueName } from './bus-test-helpers.ts';

export type { BusContractContext, BusFixture } from './bus-test-helpers.ts';

export function describeBusContract(name: string, makeBus: () => Promise<BusFixture>): void {
  describe(`${name}: bus contract`, () => {
    // Filled in by beforeEach; the parts read it inside their tests.
    const ctx = {} as BusContractContext;

    beforeEach(async () => {
      ctx.fixture = await makeBus();
      ctx.bus = ctx.fixture.bus;
      ctx.peer = await ctx.fixture.makePeer();
      ctx.subject = uniqueName();
    });
    afterEach(() => ctx.fixture.close());

    describeRequestContract(ctx);
    describeReplyStreamContract(ctx);
    describeEventContract(ctx);
    describeStreamContract(ctx);

    test('isReady() is true while open and false after close()', async () => {
      expect(ctx.bus.isReady()).toBe(true);
      await ctx.bus.close();
      expect(ctx.bus.isReady()).toBe(false);
    });
  });
}
