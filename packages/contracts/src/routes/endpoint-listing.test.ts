import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { EndpointAccess } from '../schemas/auth.ts';
import { DiscoveryIndex } from '../schemas/discovery.ts';
import { discoveryEndpoints, endpointsForScopes } from './endpoint-listing.ts';

const allowedIds = (granted: string[]) =>
  endpointsForScopes(granted)
    .filter((endpoint) => endpoint.allowed)
    .map((endpoint) => endpoint.id);

describe('discoveryEndpoints', () => {
  test('lists every listed route as "METHOD path", without the index alias', () => {
    const endpoints = discoveryEndpoints();
    expect(endpoints).toMatchObject({
      discoveryIndex: 'GET /api/v1/',
      handshakeStatus: 'GET /api/v1/handshakes/{handshakeId}/status',
      proxyGet: 'GET /api/v1/services/{service}/{path}',
    });
    expect(endpoints).not.toHaveProperty('discoveryIndexAlias');
    expect(DiscoveryIndex.shape.endpoints.safeParse(endpoints).success).toBe(true);
  });
});

describe('endpointsForScopes', () => {
  test('matches the EndpointAccess schema and resolves {access}', () => {
    const list = endpointsForScopes(['read']);
    expect(z.array(EndpointAccess).safeParse(list).success).toBe(true);
    expect(list.find((endpoint) => endpoint.id === 'proxyDelete')?.requiredScope).toBe(
      'services:{service}:{resource}:write',
    );
  });

  test('a read token may read services and knowledge, not chat or write', () => {
    const allowed = allowedIds(['read']);
    expect(allowed).toEqual(
      expect.arrayContaining(['knowledgeBase', 'proxyGet', 'listVaultTokens', 'writeMemory']),
    );
    expect(allowed).not.toEqual(expect.arrayContaining(['chat']));
    expect(allowed).not.toContain('proxyPost');
  });

  test('a GET whose access the connector decides lists its template and any services access', () => {
    const proxyGet = endpointsForScopes(['services:slack:write']).find(
      (endpoint) => endpoint.id === 'proxyGet',
    );
    expect(proxyGet).toMatchObject({
      requiredScope: 'services:{service}:{resource}:{access}',
      allowed: true,
    });
  });

  test('one service sub-scope is enough for the proxy template of its access', () => {
    const allowed = allowedIds(['services:calendar:availability:read']);
    expect(allowed).toContain('proxyGet');
    expect(allowed).not.toContain('proxyPut');
    expect(allowed).not.toContain('listVaultTokens');
  });
});
