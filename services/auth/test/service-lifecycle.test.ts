/**
 * startAuth and close(): the service answers once started, and close() stops listening and gives
 * back every database connection it held (a replica that leaks connections exhausts PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { openConnections, openConnectionsOnceClosed } from '@pag/kit/testing';
import { createOwner, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('service lifecycle', () => {
  test('close() stops listening and releases every database connection', async () => {
    await createOwner(t.db);
    await obtainTokens(t.url);
    expect(await openConnections(t.db, 'pag-auth')).toBeGreaterThan(0);
    const url = t.url;
    await t.auth.close();
    await expect(fetch(`${url}/.well-known/openid-configuration`)).rejects.toThrow();
    expect(await openConnectionsOnceClosed(t.db, 'pag-auth')).toBe(0);
    // Started again on the same data, it serves the clients and owners it had.
    await t.restart();
    expect((await fetch(`${t.url}/.well-known/openid-configuration`)).status).toBe(200);
  });

  test('an unknown path is a plain 404, without a stack', async () => {
    const response = await fetch(`${t.url}/oauth/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('Not Found');
  });
});
