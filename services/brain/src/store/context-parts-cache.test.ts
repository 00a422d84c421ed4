import { describe, expect, test } from '@jest/globals';
import type { KeptParts } from './context-parts-cache.ts';
import { ContextPartsCache, KEPT_ACCOUNTS, KEPT_AGENTS, KEPT_PARTS } from './context-parts-cache.ts';

const parts = (version: string): KeptParts => ({
  persona: null,
  user: { name: 'o', email: 'o@example.com', timezone: null, locale: null, summary: null },
  memoryCount: 0,
  memoryVersion: version,
});

function cache(synced = true): { cache: ContextPartsCache; syncs: () => number } {
  let syncs = 0;
  const kept = new ContextPartsCache(async () => {
    syncs += 1;
    return synced;
  });
  kept.setLive(true);
  return { cache: kept, syncs: () => syncs };
}

function read(into: ContextPartsCache, accountId: string, agentId: string | null, version: string): void {
  const load = into.loading(accountId);
  load.keep(agentId, parts(version));
  load.end();
}

describe('ContextPartsCache', () => {
  test('kept parts are answered after a round trip; nothing kept makes no round trip', async () => {
    const { cache: kept, syncs } = cache();
    expect(await kept.fresh('a', 'ag_x')).toBeUndefined();
    expect(syncs()).toBe(0);
    read(kept, 'a', 'ag_x', '1');
    expect(await kept.fresh('a', 'ag_x')).toEqual(parts('1'));
    expect(await kept.fresh('a', null)).toBeUndefined();
    expect(syncs()).toBe(1);
  });

  test('a round trip that fails answers nothing from memory', async () => {
    const { cache: kept } = cache(false);
    read(kept, 'a', 'ag_x', '1');
    expect(await kept.fresh('a', 'ag_x')).toBeUndefined();
  });

  test("a read under way when its account is announced is not kept; another account's announcement does not stop it", async () => {
    const { cache: kept } = cache();
    const a = kept.loading('a');
    const b = kept.loading('b');
    kept.invalidate('a');
    a.keep('ag_x', parts('1'));
    b.keep('ag_x', parts('1'));
    a.end();
    b.end();
    expect(await kept.fresh('a', 'ag_x')).toBeUndefined();
    expect(await kept.fresh('b', 'ag_x')).toEqual(parts('1'));
    // An announcement drops every agent of its account, and only those.
    read(kept, 'a', 'ag_y', '2');
    kept.invalidate('b');
    expect(await kept.fresh('b', 'ag_x')).toBeUndefined();
    expect(await kept.fresh('a', 'ag_y')).toEqual(parts('2'));
  });

  test('while not listening nothing is kept or answered, and a read that began before is not kept after', async () => {
    const { cache: kept } = cache();
    const before = kept.loading('a');
    kept.setLive(false);
    read(kept, 'a', 'ag_x', '1');
    expect(await kept.fresh('a', 'ag_x')).toBeUndefined();
    kept.setLive(true);
    before.keep('ag_x', parts('1'));
    before.end();
    expect(kept.size).toBe(0);
  });

  test('bounded: the least recently asked account and agent are dropped first', async () => {
    const { cache: kept } = cache();
    for (let i = 0; i <= KEPT_AGENTS; i += 1) read(kept, 'a', `ag_${i}`, '1');
    expect(await kept.fresh('a', 'ag_0')).toBeUndefined();
    expect(await kept.fresh('a', 'ag_1')).toEqual(parts('1'));
    for (let i = 0; i < KEPT_ACCOUNTS; i += 1) read(kept, `acct-${i}`, null, '1');
    // 'a' was asked before these: the first to go.
    expect(await kept.fresh('a', 'ag_1')).toBeUndefined();
    expect(await kept.fresh('acct-0', null)).toEqual(parts('1'));
    expect(kept.size).toBe(KEPT_ACCOUNTS);
  });

  test('at most KEPT_PARTS agents in all, the oldest account giving up its oldest first; one persona, one object', async () => {
    const { cache: kept } = cache();
    const persona = (id: string) => ({
      id,
      name: 'P',
      description: null,
      soul_content: 'Be brief.',
      active: true,
    });
    const load = kept.loading('a');
    load.keep('ag_1', { ...parts('1'), persona: persona('per_1') });
    load.keep('ag_2', { ...parts('1'), persona: persona('per_1') });
    load.end();
    expect((await kept.fresh('a', 'ag_1'))?.persona).toBe((await kept.fresh('a', 'ag_2'))?.persona);
    for (let account = 0; account < KEPT_PARTS / KEPT_AGENTS; account += 1) {
      for (let agent = 0; agent < KEPT_AGENTS; agent += 1) read(kept, `acct-${account}`, `ag_${agent}`, '1');
    }
    expect(kept.size).toBe(KEPT_PARTS);
    expect(await kept.fresh('a', 'ag_2')).toBeUndefined();
    expect(await kept.fresh('acct-0', 'ag_0')).toEqual(parts('1'));
  });
});
