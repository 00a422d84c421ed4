import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AppError, AuthSubjects, ErrorBody } from '@pag/contracts';
import { PresenceAnnouncer } from '@pag/kit';
import { NOT_RUNNING_RETRY_AFTER_SECONDS } from '../src/pipeline/dispatch.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

let gateway: TestGateway;
beforeAll(async () => {
  // The default dispatch timeout (10 s): only the timeout test's own gateway waits less, so a
  // loaded machine cannot turn a slow answer into that test's 504.
  gateway = await startTestGateway({ BODY_LIMIT_BYTES: '2048' });
});
afterAll(async () => {
  await gateway[Symbol.asyncDispose]();
});

async function call(method: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.url}${path}`, { method, redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

async function callError(method: string, path: string, init: RequestInit = {}) {
  const result = await call(method, path, init);
  return { ...result, error: ErrorBody.parse(JSON.parse(result.text)).error };
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const handshake = { agentId: 'claude-desktop', requestedScopes: ['read'], message: 'Reads your calendar.' };

describe('unknown paths', () => {
  test('a doubled /api/v1 prefix is ROUTE_NOT_FOUND with a hint naming the right path', async () => {
    const { status, error, headers } = await callError('GET', '/api/v1/api/v1/gateway/context');
    expect(status).toBe(404);
    expect(error.code).toBe('ROUTE_NOT_FOUND');
    expect(error.hint).toContain('GET /api/v1/gateway/context');
    expect(error.requestId).toBe(headers.get('x-request-id'));
  });

  test.each([
    ['/api/v1/nothing-here', '/api/v1/'],
    ['/api/v1/quick-start/', '/api/v1/quick-start'],
    ['/quick-start', '/api/v1/quick-start'],
  ])('%s is ROUTE_NOT_FOUND with a hint naming %s', async (path, named) => {
    const { status, error } = await callError('GET', path);
    expect(status).toBe(404);
    expect(error.code).toBe('ROUTE_NOT_FOUND');
    expect(error.hint).toContain(named);
  });

  test('no path under /api/v1 answers 3xx', async () => {
    const paths = [
      '/api/v1',
      '/api/v1/',
      '/api/v1//',
      '//api/v1/',
      '/api/v1/quick-start/',
      '/api/v1/./quick-start',
      '/api/v1/../api/v1/',
      '/api/v1/%2e%2e/',
      '/API/V1/',
      '/api/v1/api/v1',
      '/api/v1/services/',
      '/api/v1/services/github',
      '/api/v1/services/github/',
      '/api/v1/handshakes/',
      '/api/v1/handshakes/x/status/',
    ];
    const redirects: string[] = [];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'HEAD', 'OPTIONS']) {
        const { status } = await call(method, path);
        if (status >= 300 && status < 400) redirects.push(`${method} ${path} → ${status}`);
      }
    }
    expect(redirects).toEqual([]);
  });

  test('a known path with another method is 405 with Allow', async () => {
    const { status, error, headers } = await callError('DELETE', '/api/v1/quick-start');
    expect(status).toBe(405);
    expect(error.code).toBe('METHOD_NOT_ALLOWED');
    expect(headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('request bodies', () => {
  test('malformed JSON is 400 MALFORMED_JSON naming the problem', async () => {
    const { status, error } = await callError('POST', '/api/v1/handshakes', {
      headers: { 'content-type': 'application/json' },
      body: '{"agentId": "a",',
    });
    expect(status).toBe(400);
    expect(error.code).toBe('MALFORMED_JSON');
    expect(error.message).toMatch(/JSON/);
  });

  test('a body over the limit is 413', async () => {
    const { status, error } = await callError(
      'POST',
      '/api/v1/handshakes',
      json({ ...handshake, message: 'x'.repeat(4096) }),
    );
    expect(status).toBe(413);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('another media type is 415', async () => {
    const { status, error } = await callError('POST', '/api/v1/handshakes', {
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(status).toBe(415);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('an invalid body is 400 naming each bad field', async () => {
    const { status, error } = await callError(
      'POST',
      '/api/v1/handshakes',
      json({ agentId: '', requestedScopes: ['full'] }),
    );
    expect(status).toBe(400);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('agentId');
    expect(error.message).toContain('requestedScopes');
    expect(error.message).toContain('message');
  });
});

describe('dispatch to services', () => {
  test('a route whose service is not running answers 503 SERVICE_UNAVAILABLE naming it, with Retry-After', async () => {
    const { status, error, headers } = await callError('POST', '/api/v1/handshakes', json(handshake));
    expect(status).toBe(503);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    // No auth instance announced itself: not running (not restarting), so a longer wait.
    expect(error.message).toBe('The auth service is not running.');
    expect(headers.get('retry-after')).toBe(String(NOT_RUNNING_RETRY_AFTER_SECONDS));
  });

  test('a service that announced itself but does not serve the subject: 503 naming the subject, Retry-After 1', async () => {
    const auth = await PresenceAnnouncer.start({ bus: gateway.bus, service: 'auth' });
    try {
      const { status, error, headers } = await callError('POST', '/api/v1/handshakes', json(handshake));
      expect(status).toBe(503);
      expect(error.message).toBe(
        'No auth service answers auth.handshake.create: it is not running, or it does not serve this endpoint yet.',
      );
      expect(headers.get('retry-after')).toBe('1');
    } finally {
      await auth.close();
    }
  });

  test('a running service answers through the bus, with the request id and the validated body', async () => {
    const seen: unknown[] = [];
    const subscription = await gateway.bus.handle(AuthSubjects.handshakeCreate, (message) => {
      seen.push({ data: message.data, requestId: message.headers['x-request-id'] });
      return { handshakeId: 'hs_1', status: 'pending' };
    });
    try {
      const response = await call('POST', '/api/v1/handshakes', {
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
        body: JSON.stringify(handshake),
      });
      expect(response.status).toBe(201);
      expect(JSON.parse(response.text)).toEqual({ handshakeId: 'hs_1', status: 'pending' });
      expect(seen).toEqual([{ data: { params: {}, query: {}, body: handshake }, requestId: 'req-42' }]);
    } finally {
      await subscription.close();
    }
  });

  test("a service's AppError reaches the client with its code", async () => {
    const subscription = await gateway.bus.handle(AuthSubjects.handshakeStatus, () => {
      throw new AppError('NOT_FOUND', 'No handshake hs_9.');
    });
    try {
      const { status, error } = await callError('GET', '/api/v1/handshakes/hs_9/status');
      expect(status).toBe(404);
      expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'No handshake hs_9.' });
    } finally {
      await subscription.close();
    }
  });

  test('a service that does not answer in time is 504 UPSTREAM_TIMEOUT', async () => {
    // The handler answers only after the test has seen the 504, so closing the bus does not wait on it.
    await using impatient = await startTestGateway({ DISPATCH_TIMEOUT_MS: '300' });
    const { promise: late, resolve: answerLate } = Promise.withResolvers<{ status: string }>();
    const subscription = await impatient.bus.handle(AuthSubjects.handshakeStatus, () => late);
    try {
      const response = await fetch(`${impatient.url}/api/v1/handshakes/hs_1/status`);
      const status = response.status;
      const { error } = ErrorBody.parse(await response.json());
      expect(status).toBe(504);
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
    } finally {
      answerLate({ status: 'pending' });
      await subscription.close();
    }
  });
});

describe('bearer routes', () => {
  test('without a token: 401 with WWW-Authenticate and the handshake hint', async () => {
    const { status, error, headers } = await callError('GET', '/api/v1/gateway/context');
    expect(status).toBe(401);
    expect(error.code).toBe('AUTHENTICATION_REQUIRED');
    expect(headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(error.hint).toContain('/api/v1/handshakes');
  });

  test('a token in the query string is refused', async () => {
    const { status, error } = await callError('GET', '/api/v1/gateway/context?access_token=abc');
    expect(status).toBe(400);
    expect(error.code).toBe('TOKEN_IN_QUERY');
  });

  test('with a token while the auth service is not running: 503, not a guess', async () => {
    const { status, error } = await callError('GET', '/api/v1/gateway/context', {
      headers: { authorization: 'Bearer abc.def' },
    });
    expect(status).toBe(503);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
