/**
 * The JSON body step's forms and refusals (src/pipeline/json-body.ts): a UTF-8 body is read by
 * the step itself, any other charset or a Content-Encoding by express.json; both reach the
 * route's schema with the same value, and both refuse what body-parser refused, with the same
 * codes.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const LIMIT = 2048;
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ BODY_LIMIT_BYTES: String(LIMIT) });
});
afterAll(async () => {
  await gateway[Symbol.asyncDispose]();
});

async function post(headers: Record<string, string>, body: RequestInit['body'], init: RequestInit = {}) {
  const response = await fetch(`${gateway.url}/api/v1/handshakes`, {
    method: 'POST',
    headers,
    body,
    ...init,
  });
  return { status: response.status, error: ErrorBody.parse(await response.json()).error };
}

/** A handshake the schema refuses for one field only: the body was read and parsed. */
const BODY = {
  agentId: '',
  requestedScopes: ['read'],
  message: 'caf\u00e9 "quoted" \\ \u4e2d\u6587 \u{1f600}',
};
const TEXT = JSON.stringify(BODY);

describe('a body that reaches the schema', () => {
  test.each([
    ['no charset', { 'content-type': 'application/json' }, Buffer.from(TEXT)],
    ['charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(TEXT)],
    ['charset="UTF-8"', { 'content-type': 'application/json;charset="UTF-8"' }, Buffer.from(TEXT)],
    ['a byte order mark', { 'content-type': 'application/json' }, Buffer.from(`\ufeff${TEXT}`)],
    ['UTF-16LE', { 'content-type': 'application/json; charset=utf-16le' }, Buffer.from(TEXT, 'utf16le')],
    ['gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(Buffer.from(TEXT))],
    ['a problem+json type', { 'content-type': 'application/problem+json' }, Buffer.from(TEXT)],
  ])('%s: 400 INVALID_REQUEST naming the one bad field', async (_, headers, body) => {
    const { status, error } = await post(headers, body);
    expect(status).toBe(400);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('agentId');
    expect(error.message).not.toContain('message');
  });

  test('sent in chunks without a length', async () => {
    const bytes = Buffer.from(TEXT);
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 7));
        controller.enqueue(bytes.subarray(7));
        controller.close();
      },
    });
    const { status, error } = await post({ 'content-type': 'application/json' }, body, {
      duplex: 'half',
    } as RequestInit);
    expect(status).toBe(400);
    expect(error.message).toContain('agentId');
  });

  test('an empty body is an empty object, which the schema refuses field by field', async () => {
    const { status, error } = await post({ 'content-type': 'application/json' }, '');
    expect(status).toBe(400);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('agentId');
    expect(error.message).toContain('message');
  });
});

describe('refused', () => {
  test.each([
    ['charset=latin1', { 'content-type': 'application/json; charset=latin1' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'an unknown UTF charset',
      { 'content-type': 'application/json; charset=utf-42' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'an unknown Content-Encoding',
      { 'content-type': 'application/json', 'content-encoding': 'compress' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  ])('%s: 415 UNSUPPORTED_MEDIA_TYPE', async (_, headers, status, code) => {
    const answer = await post(headers, TEXT);
    expect(answer.status).toBe(status);
    expect(answer.error.code).toBe(code);
  });

  test('UTF-32, which body-parser decodes but the duplicate-key check cannot: 415', async () => {
    const utf32 = Buffer.alloc(4 * [...TEXT].length);
    for (const [index, char] of [...TEXT].entries()) utf32.writeUInt32LE(char.codePointAt(0) ?? 0, 4 * index);
    const { status, error } = await post({ 'content-type': 'application/json; charset=utf-32le' }, utf32);
    expect(status).toBe(415);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('a declared length over the limit: 413 naming the limit', async () => {
    const { status, error } = await post({ 'content-type': 'application/json' }, 'x'.repeat(LIMIT + 1));
    expect(status).toBe(413);
    expect(error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining(String(LIMIT)),
    });
  });

  test('a body over the limit sent without a length: 413', async () => {
    const chunk = Buffer.from(' '.repeat(1024));
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 4) controller.close();
        else controller.enqueue(chunk);
        sent += 1;
      },
    });
    const { status, error } = await post({ 'content-type': 'application/json' }, body, {
      duplex: 'half',
    } as RequestInit);
    expect(status).toBe(413);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test.each([
    ['a string at the top level', ' "just text"', 'must be a JSON object or array'],
    ['broken JSON', '{"agentId": "a",', 'is not valid JSON'],
    ['whitespace only', '  \n ', 'is not valid JSON'],
    ['a key twice', '{"agentId":"a","agentId":"b"}', 'the key "agentId" twice'],
  ])('%s: 400 MALFORMED_JSON', async (_, body, message) => {
    const { status, error } = await post({ 'content-type': 'application/json' }, body);
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'MALFORMED_JSON', message: expect.stringContaining(message) });
  });
});
