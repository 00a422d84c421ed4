import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { GENERATED_DOCS } from '../scripts/docs/generated-docs.ts';

describe('generated documents', () => {
  test.each(GENERATED_DOCS)('$path is current (else run pnpm docs)', async (doc) => {
    expect(await readFile(doc.path, 'utf8')).toBe(doc.render());
  });
});
