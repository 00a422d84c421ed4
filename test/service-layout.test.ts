/**
 * Inside a service a module is imported from the file that defines it: no folder-level barrel
 * files (`src/<folder>/mod.ts`), which re-export a folder and made the import cycles madge found
 * (`api/*-api.ts ↔ api/mod.ts`, `handlers/* ↔ handlers/mod.ts`). `src/mod.ts` stays: it is the
 * package's entry, what the embedded stack and the tests import. `pnpm cycles` (in `pnpm test`)
 * checks for cycles themselves.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';

const SERVICES = fileURLToPath(new URL('../services', import.meta.url));

test('no folder-level barrel files inside services', async () => {
  const barrels: string[] = [];
  for (const service of await readdir(SERVICES)) {
    const src = `${SERVICES}/${service}/src`;
    const files = await readdir(src, { recursive: true }).catch(() => []);
    for (const file of files)
      if (file.endsWith('/mod.ts') && !file.startsWith('generated/'))
        barrels.push(`services/${service}/src/${file}`);
  }
  expect(barrels).toEqual([]);
});
