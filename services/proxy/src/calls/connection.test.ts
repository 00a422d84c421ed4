/**
 * credentialOf's answer as the credential cache sees it: an OAuth credential may be kept only
 * until its refresh is due (expiry minus the refresh margin), so a copy in memory never hides a
 * refresh; an API key keeps its own expiry. The cache asks again at exactly that point.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { resolveConnectors } from '../connectors/catalogue.ts';
import type { RefreshOutcome } from '../store/connect-store.ts';
import type { CredentialLookup } from '../store/vault-store.ts';
import type { CredentialSource } from './connection.ts';
import { credentialOf } from './connection.ts';
import { CredentialCache } from './credential-cache.ts';

const MARGIN_MS = 60_000;
const connectors = resolveConnectors({ clients: { github: { clientId: 'id', clientSecret: 'secret' } } });
const oauth = connectors.get('github');
const apiKey = connectors.get('stripe');
const accountId = randomUUID();

/** A vault holding one lookup, and a refresher that counts its refreshes and answers `outcome`. */
function source(lookup: CredentialLookup, outcome: RefreshOutcome) {
  const refreshes: string[] = [];
  const from: CredentialSource = {
    store: { credentialFor: async () => lookup },
    refresher: {
      marginMs: MARGIN_MS,
      refresh: async (_accountId, connector) => {
        refreshes.push(connector.name);
        return outcome;
      },
    },
  };
  return { from, refreshes };
}

describe('credentialOf and the credential cache', () => {
  test("an OAuth credential is kept until its refresh is due, not until the token's expiry", async () => {
    if (oauth === undefined) throw new Error('no github connector');
    const expiresAt = new Date(Date.now() + MARGIN_MS + 2_000);
    const due = expiresAt.getTime() - MARGIN_MS;
    const { from, refreshes } = source(
      { state: 'connected', tokenId: 'access-1', value: 'gho_first', expiresAt },
      { outcome: 'no_refresh' },
    );
    expect(await credentialOf(from, accountId, oauth, 'req-1')).toEqual({
      tokenId: 'access-1',
      value: 'gho_first',
      expiresAt: new Date(due),
    });
    expect(refreshes).toEqual([]);

    // A cache whose clock reaches the refresh point asks credentialOf again (where the refresh runs).
    let now = Date.now();
    let loads = 0;
    const cache = new CredentialCache({ ttlMs: 5_000, now: () => now });
    cache.setLive(true);
    const load = () => {
      loads += 1;
      return credentialOf(from, accountId, oauth, 'req-2');
    };
    await cache.get(accountId, 'github', load);
    now = due - 1;
    await cache.get(accountId, 'github', load);
    expect(loads).toBe(1);
    now = due;
    await cache.get(accountId, 'github', load);
    expect(loads).toBe(2);
  });

  test('a token within the margin is refreshed; the new one is kept until its own refresh point', async () => {
    if (oauth === undefined) throw new Error('no github connector');
    const refreshedUntil = new Date(Date.now() + 3_600_000);
    const { from, refreshes } = source(
      {
        state: 'connected',
        tokenId: 'access-1',
        value: 'gho_first',
        expiresAt: new Date(Date.now() + MARGIN_MS / 2),
      },
      { outcome: 'refreshed', tokenId: 'access-2', value: 'gho_second', expiresAt: refreshedUntil },
    );
    expect(await credentialOf(from, accountId, oauth, 'req-1')).toEqual({
      tokenId: 'access-2',
      value: 'gho_second',
      expiresAt: new Date(refreshedUntil.getTime() - MARGIN_MS),
    });
    expect(refreshes).toEqual(['github']);
  });

  test('a token past its refresh point whose refresh cannot happen is used, but never kept', async () => {
    if (oauth === undefined) throw new Error('no github connector');
    const { from, refreshes } = source(
      {
        state: 'connected',
        tokenId: 'access-1',
        value: 'gho_first',
        expiresAt: new Date(Date.now() + MARGIN_MS / 2),
      },
      { outcome: 'no_refresh' },
    );
    const credential = await credentialOf(from, accountId, oauth, 'req-1');
    expect(credential.value).toBe('gho_first');
    expect(refreshes).toEqual(['github']);
    const cache = new CredentialCache();
    cache.setLive(true);
    await cache.get(accountId, 'github', () => credentialOf(from, accountId, oauth, 'req-2'));
    expect(cache.size).toBe(0);
  });

  test('an API key keeps its own expiry (it has no refresh)', async () => {
    if (apiKey === undefined) throw new Error('no stripe connector');
    const expiresAt = new Date(Date.now() + MARGIN_MS / 2);
    const { from, refreshes } = source(
      { state: 'connected', tokenId: 'key-1', value: 'sk_live', expiresAt },
      { outcome: 'no_refresh' },
    );
    expect(await credentialOf(from, accountId, apiKey, 'req-1')).toEqual({
      tokenId: 'key-1',
      value: 'sk_live',
      expiresAt,
    });
    expect(refreshes).toEqual([]);
  });
});
