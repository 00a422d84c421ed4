/**
 * The SDK's operation table against the OpenAPI document the gateway serves (built by the same
 * function from the same route table), and the platform-neutral entry against Node-only imports.
 * test/sdk-client.test.ts runs the same check on the document a running stack serves.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { buildOpenApiDocument } from '@pag/contracts';
import { operationProblems } from './document-check.ts';

describe('the operation table', () => {
  test('matches the OpenAPI document: paths, methods, success statuses, body and answer schemas', () => {
    const document = buildOpenApiDocument({ serverUrl: 'http://gateway.test', version: '0.1.0' });
    expect(operationProblems(document as unknown as Record<string, unknown>)).toEqual([]);
  });

  test('a row that drifts from the document is reported', () => {
    const document = buildOpenApiDocument({
      serverUrl: 'http://gateway.test',
      version: '0.1.0',
    }) as unknown as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const memory = document.paths['/api/v1/memory'];
    if (memory?.post === undefined) throw new Error('the document has no POST /api/v1/memory');
    memory.post.requestBody = {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ChatRequest' } } },
    };
    delete document.paths['/api/v1/gateway/context'];
    expect(operationProblems(document as unknown as Record<string, unknown>)).toEqual([
      'context: the document has no GET /api/v1/gateway/context',
      'writeMemory: the body is ChatRequest in the document, MemoryWriteRequest in the SDK',
    ]);
  });
});

describe('the platform-neutral entry', () => {
  test('imports nothing of Node outside src/node.ts (types aside)', async () => {
    const src = new URL('../src/', import.meta.url).pathname;
    const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('node.ts');
    const offending: string[] = [];
    for (const file of files.filter((name) => name !== 'node.ts')) {
      const text = await readFile(join(src, file), 'utf8');
      for (const line of text.split('\n'))
        if (/^import (?!type )[\s\S]*from 'node:/.test(line) || /\b(process|Buffer|require)\b[.(]/.test(line))
          offending.push(`${file}: ${line.trim()}`);
    }
    expect(offending).toEqual([]);
  });
});
