import { describe, expect, test } from '@jest/globals';
import type { OwnerConnectorRow } from '../store/owner-connector-store.ts';
import { resolveConnectors } from './catalogue.ts';
import { ownerDefinition } from './owner-connector.ts';
import { ConnectorRegistry } from './registry.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const client = { clientId: 'own-id', clientSecret: 'own-secret' };

const own = ownerDefinition(
  {
    name: 'acme',
    displayName: 'Acme',
    authorizationUrl: 'https://acme.example/auth',
    tokenUrl: 'https://acme.example/token',
    revocationUrl: null,
    apiBaseUrl: 'https://api.acme.example',
    scopes: [],
    clientAuth: 'client_secret_post',
    pkce: true,
    clientId: client.clientId,
  },
  false,
);

function source(rows: Record<string, OwnerConnectorRow[]>) {
  const reads: string[] = [];
  return {
    reads,
    rowsOf: async (accountId: string) => {
      reads.push(accountId);
      return rows[accountId] ?? [];
    },
  };
}

describe('the connectors of an account', () => {
  const base = resolveConnectors({ clients: { slack: { clientId: 'deploy', clientSecret: 'd' } } });

  test("an owner's client and connector are that owner's only; the owner's client beats the deployment's", async () => {
    const rows = source({
      [A]: [
        { service: 'slack', definition: null, client },
        { service: 'acme', definition: own, client },
      ],
    });
    const registry = new ConnectorRegistry(base, rows);
    const mine = await registry.forAccount(A);
    expect(mine.get('slack')).toMatchObject({
      client,
      clientSource: 'owner',
      owned: false,
      publicOnly: null,
    });
    expect(mine.get('acme')).toMatchObject({ client, clientSource: 'owner', owned: true });
    expect(mine.get('acme')?.publicOnly?.allowLoopback).toBe(false);
    const theirs = await registry.forAccount(B);
    expect(theirs).toBe(base);
    expect(theirs.get('slack')).toMatchObject({ clientSource: 'deployment' });
    expect(theirs.has('acme')).toBe(false);
  });

  test('a row named like a catalogue connector never replaces it', async () => {
    const clash = { ...own, name: 'github' };
    const registry = new ConnectorRegistry(
      base,
      source({ [A]: [{ service: 'github', definition: clash, client }] }),
    );
    expect((await registry.forAccount(A)).get('github')).toBe(base.get('github'));
  });

  test('kept while changes are heard, read again after a change of the account', async () => {
    const rows = source({});
    const registry = new ConnectorRegistry(base, rows);
    await registry.forAccount(A);
    await registry.forAccount(A);
    expect(rows.reads).toEqual([A, A]);
    registry.setLive(true);
    await Promise.all([registry.forAccount(A), registry.forAccount(A)]);
    await registry.forAccount(A);
    expect(rows.reads).toEqual([A, A, A]);
    registry.invalidate(A, 'anything');
    await registry.forAccount(A);
    expect(rows.reads).toEqual([A, A, A, A]);
  });
});
