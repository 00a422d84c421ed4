/**
 * `pnpm docs`: writes the generated documents under docs/ (each checked current by a test).
 */
import { writeFile } from 'node:fs/promises';
import { GENERATED_DOCS } from './docs/generated-docs.ts';

for (const doc of GENERATED_DOCS) {
  await writeFile(doc.path, doc.render());
  process.stdout.write(`wrote ${doc.path}\n`);
}
