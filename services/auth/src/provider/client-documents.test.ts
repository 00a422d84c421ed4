/**
 * Client metadata documents as the adapter's find answers them: each fault of the URL, the
 * fetch or the document is invalid_client saying what was wrong; documents and refusals are
 * cached for their time; a document fetched before stands in while its host is unreachable.
 * The documents are served by this test on loopback (allowed here as CIMD_ALLOW_LOOPBACK would).
 */

import type { Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { errors } from 'oidc-provider';
import {
  CACHE_MIN_SECONDS,
  ClientDocuments,
  DOCUMENT_MAX_BYTES,
  FAILURE_CACHE_SECONDS,
  STALE_SECONDS,
} from './client-documents.ts';

let server: Server;
let base: string;
/** How each path answers; changed by the tests. */
const answers = new Map<string, (res: ServerResponse, url: string) => void>();
const hits = new Map<string, number>();

const json =
  (body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/** A valid document for the URL of `path`. */
const document = (path: string, extra: Record<string, unknown> = {}) => ({
  client_id: `${base}${path}`,
  client_name: 'Document Agent',
  redirect_uris: ['http://127.0.0.1/callback'],
  ...extra,
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (answer === undefined) res.writeHead(404).end();
    else answer(res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let now = Date.now();
/** The fetch's time limit in these tests: a loaded CI machine answers a loopback fetch in well under it. */
const TIMEOUT_MS = 5_000;
/** The limit of the one test that waits for it (a document that never answers). */
const SLOW_TIMEOUT_MS = 300;
// A short limit everywhere made a loaded machine's slow 404 look like an unreachable host, so the
// cache rightly served the stale document and the "withdrawn" test failed (CI, 2026-11-25).
const documents = (timeoutMs = TIMEOUT_MS) =>
  new ClientDocuments({ allowLoopback: true, timeoutMs, now: () => now });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(errors.InvalidClient);
  return String((error as { error_description: string }).error_description);
}

describe('a client metadata document', () => {
  test('is the client metadata, a public client by default', async () => {
    answers.set('/good.json', json(document('/good.json', { scope: 'read' })));
    const metadata = await documents().metadata(`${base}/good.json`);
    expect(metadata).toMatchObject({
      client_id: `${base}/good.json`,
      client_name: 'Document Agent',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    });
    // Checked against the grammar, then not kept (as at registration).
    expect(metadata).not.toHaveProperty('scope');
  });

  test.each([
    [
      '/other-id.json',
      json({ ...document('/x'), client_id: 'https://elsewhere.example/doc.json' }),
      /names client_id "https:\/\/elsewhere\.example\/doc\.json"; it must be its own URL exactly/,
    ],
    ['/not-json.json', (res: ServerResponse) => res.writeHead(200).end('<html>hello</html>'), /is not JSON$/],
    ['/array.json', json([1, 2]), /is not a JSON object$/],
    [
      '/secret.json',
      (res: ServerResponse, url: string) => json(document(url, { client_secret: 'x' }))(res),
      /must not contain a client secret/,
    ],
    [
      '/basic.json',
      (res: ServerResponse, url: string) =>
        json(document(url, { token_endpoint_auth_method: 'client_secret_basic' }))(res),
      /token_endpoint_auth_method "none"/,
    ],
    [
      '/pkjwt.json',
      (res: ServerResponse, url: string) =>
        json(document(url, { token_endpoint_auth_method: 'private_key_jwt' }))(res),
      /private_key_jwt is not supported/,
    ],
    [
      '/remote-http.json',
      (res: ServerResponse, url: string) =>
        json(document(url, { redirect_uris: ['http://agent.example/cb'] }))(res),
      /breaks the registration policy: redirect_uris: must use https, or http on a loopback host/,
    ],
    [
      '/jwks.json',
      (res: ServerResponse, url: string) =>
        json(document(url, { jwks_uri: 'https://agent.example/jwks' }))(res),
      /jwks_uri is not accepted/,
    ],
    [
      '/implicit.json',
      (res: ServerResponse, url: string) => json(document(url, { grant_types: ['implicit'] }))(res),
      /grant_types must be authorization_code/,
    ],
    ['/missing.json', undefined, /could not be fetched: it answered 404$/],
    [
      '/redirect.json',
      (res: ServerResponse) => res.writeHead(301, { location: '/good.json' }).end(),
      /could not be fetched: it answered 301 \(a redirect, which is not followed\)$/,
    ],
    [
      '/big.json',
      (res: ServerResponse, url: string) =>
        json(document(url, { client_name: 'x'.repeat(DOCUMENT_MAX_BYTES) }))(res),
      /could not be fetched: it is larger than 5120 bytes$/,
    ],
    ['/slow.json', () => {}, /could not be fetched: no complete answer within 300 ms$/],
  ])('%s is refused, saying why', async (path, answer, why) => {
    if (answer === undefined) answers.delete(path);
    else answers.set(path, answer);
    const cache = documents(path === '/slow.json' ? SLOW_TIMEOUT_MS : TIMEOUT_MS);
    const description = await refusal(cache.metadata(`${base}${path}`));
    expect(description).toMatch(new RegExp(`^the client metadata document at ${base}${path} `));
    expect(description).toMatch(why);
  });

  test.each([
    [
      'https://169.254.169.254/latest/meta-data/client.json',
      /could not be fetched: 169\.254\.169\.254 is not a public address$/,
    ],
    ['https://10.0.0.8/client.json', /could not be fetched: 10\.0\.0\.8 is not a public address$/],
    [
      'https://localhost/client.json',
      /could not be fetched: localhost resolves to .+, which is not a public address$/,
    ],
    ['https://agent.example', /the client_id URL must have a path$/],
    ['https://agent.example/a/../client.json', /must not contain \. or \.\. path segments$/],
  ])('%s is refused before any fetch', async (clientId, why) => {
    const strict = new ClientDocuments({ allowLoopback: false });
    expect(await refusal(strict.metadata(clientId))).toMatch(why);
  });

  test('over http is refused unless loopback is allowed (CIMD_ALLOW_LOOPBACK)', async () => {
    answers.set('/http.json', json(document('/http.json')));
    const strict = new ClientDocuments({ allowLoopback: false });
    expect(await refusal(strict.metadata(`${base}/http.json`))).toMatch(
      /could not be fetched: the URL must use https$/,
    );
    expect(hits.get('/http.json')).toBeUndefined();
  });
});

describe('the cache', () => {
  test('keeps a document for its max-age (at least the minimum), then fetches it again', async () => {
    answers.set('/cached.json', json(document('/cached.json'), { 'cache-control': 'public, max-age=600' }));
    const cache = documents();
    const id = `${base}/cached.json`;
    await Promise.all([cache.metadata(id), cache.metadata(id)]);
    expect(hits.get('/cached.json')).toBe(1);
    now += 599_000;
    await cache.metadata(id);
    expect(hits.get('/cached.json')).toBe(1);
    now += 2_000;
    await cache.metadata(id);
    expect(hits.get('/cached.json')).toBe(2);

    answers.set('/no-store.json', json(document('/no-store.json'), { 'cache-control': 'no-store' }));
    await cache.metadata(`${base}/no-store.json`);
    now += (CACHE_MIN_SECONDS - 1) * 1000;
    await cache.metadata(`${base}/no-store.json`);
    expect(hits.get('/no-store.json')).toBe(1);
  });

  test('keeps a refusal briefly', async () => {
    answers.set('/broken.json', json({ client_id: 'nope' }));
    const cache = documents();
    const id = `${base}/broken.json`;
    await refusal(cache.metadata(id));
    await refusal(cache.metadata(id));
    expect(hits.get('/broken.json')).toBe(1);
    answers.set('/broken.json', json(document('/broken.json')));
    now += (FAILURE_CACHE_SECONDS + 1) * 1000;
    await expect(cache.metadata(id)).resolves.toMatchObject({ client_id: id });
  });

  test('uses the document fetched before while its host fails, but not a document withdrawn', async () => {
    answers.set('/outage.json', json(document('/outage.json')));
    const cache = documents();
    const id = `${base}/outage.json`;
    await cache.metadata(id);
    answers.set('/outage.json', (res) => res.writeHead(503).end());
    now += 3600_000;
    await expect(cache.metadata(id)).resolves.toMatchObject({ client_id: id });
    now += (STALE_SECONDS + 1) * 1000;
    expect(await refusal(cache.metadata(id))).toMatch(/it answered 503$/);

    answers.set('/withdrawn.json', json(document('/withdrawn.json')));
    await cache.metadata(`${base}/withdrawn.json`);
    answers.delete('/withdrawn.json');
    now += 3600_000;
    expect(await refusal(cache.metadata(`${base}/withdrawn.json`))).toMatch(/it answered 404$/);
  });
});
