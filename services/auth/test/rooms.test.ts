/**
 * The auth service's rooms (docs/adr/0033): the Prisma client and its row types are imported only
 * under src/store/, so every query lives in a store the composition root (src/core.ts) builds once.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** Every module specifier a file imports or re-exports from (static and dynamic). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g))
    if (match[1] !== undefined) found.push(match[1]);
  return found;
}

const isPrisma = (specifier: string) =>
  specifier.includes('/generated/prisma') || specifier.startsWith('@prisma/') || specifier === '.prisma';

test('only src/store/ imports Prisma', async () => {
  const files = (await readdir(SRC, { recursive: true }))
    .filter((file) => file.endsWith('.ts') && !file.startsWith('generated/'))
    .map((file) => join(SRC, file));
  const outside: string[] = [];
  for (const file of files) {
    const path = relative(SRC, file);
    if (path.startsWith('store/')) continue;
    for (const specifier of specifiers(await readFile(file, 'utf8')))
      if (isPrisma(specifier)) outside.push(`src/${path} imports ${specifier}`);
  }
  expect(files.length).toBeGreaterThan(50);
  expect(outside).toEqual([]);
});
