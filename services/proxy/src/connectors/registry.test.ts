import { once } from 'node:events';
import type { Agent, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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

describe("the agents of an owner's connectors", () => {
  const base = resolveConnectors({});

  /** A loopback API that answers each request when told to, and counts the sockets it holds. */
  async function loopbackApi() {
    const open = new Set<Socket>();
    const held: ServerResponse[] = [];
    let hold = false;
    const server = createServer((_req, res) => {
      if (hold) held.push(res);
      else res.end('ok');
    });
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      open,
      held,
      holdAnswers: (on: boolean) => {
        hold = on;
      },
      [Symbol.asyncDispose]: async () => {
        server.closeAllConnections();
        server.close();
        await once(server, 'close');
      },
    };
  }

  function get(url: string, agent: Agent): Promise<void> {
    return new Promise((resolve, reject) => {
      request(url, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
  }

  async function until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise((resolve) => setImmediate(resolve));
  }

  function definitionAt(url: string) {
    return ownerDefinition(
      {
        name: 'acme',
        displayName: 'Acme',
        authorizationUrl: `${url}/auth`,
        tokenUrl: `${url}/token`,
        revocationUrl: null,
        apiBaseUrl: url,
        scopes: [],
        clientAuth: 'client_secret_post',
        pkce: true,
        clientId: client.clientId,
      },
      true,
    );
  }

  test('a rebuild of the account keeps the agent, so its connections stay reused', async () => {
    await using api = await loopbackApi();
    const rows: Record<string, OwnerConnectorRow[]> = {
      [A]: [{ service: 'acme', definition: definitionAt(api.url), client }],
    };
    const registry = new ConnectorRegistry(base, source(rows), { allowLoopback: true });
    const agent = (await registry.forAccount(A)).get('acme')?.publicOnly?.agent;
    expect(agent).toBeDefined();
    await get(`${api.url}/x`, agent as Agent);
    // Not live: every call rebuilds the map; live: a change of the account does.
    expect((await registry.forAccount(A)).get('acme')?.publicOnly?.agent).toBe(agent);
    registry.setLive(true);
    await registry.forAccount(A);
    registry.invalidate(A, 'acme');
    const again = (await registry.forAccount(A)).get('acme')?.publicOnly?.agent as Agent;
    expect(again).toBe(agent);
    await get(`${api.url}/y`, again);
    expect(api.open.size).toBe(1);
  });

  test("a connector gone from the account's rows has its idle and busy sockets closed, no call cut", async () => {
    await using api = await loopbackApi();
    const rows: Record<string, OwnerConnectorRow[]> = {
      [A]: [{ service: 'acme', definition: definitionAt(api.url), client }],
    };
    const registry = new ConnectorRegistry(base, source(rows), { allowLoopback: true });
    registry.setLive(true);
    const agent = (await registry.forAccount(A)).get('acme')?.publicOnly?.agent as Agent;
    api.holdAnswers(true);
    const busy = get(`${api.url}/busy`, agent);
    await until(() => api.held.length === 1);
    api.holdAnswers(false);
    await get(`${api.url}/idle`, agent);
    expect(api.open.size).toBe(2);

    rows[A] = [];
    registry.invalidate(A, 'acme');
    expect((await registry.forAccount(A)).has('acme')).toBe(false);
    await until(() => api.open.size === 1);
    api.held[0]?.end('late');
    await busy;
    await until(() => api.open.size === 0);
    expect(Object.keys(agent.freeSockets)).toHaveLength(0);
  });
});
