/**
 * No bus subject is a bare string outside the contracts: services and packages name subjects
 * through the endpoints (or EventSubjects), so a renamed subject cannot leave a stale copy behind.
 * Tests are exempt: they may name a subject to check it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@jest/globals';
import { EventSubjects, SubjectTable } from '@pag/contracts';

const ROOT = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'generated', 'test'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('no source file outside packages/contracts spells a subject', () => {
  const subjects = new Set([...SubjectTable.map((route) => route.subject), ...Object.values(EventSubjects)]);
  const roots = [
    ...readdirSync(join(ROOT, 'services')).map((name) => join(ROOT, 'services', name, 'src')),
    ...readdirSync(join(ROOT, 'packages'))
      .filter((name) => name !== 'contracts')
      .map((name) => join(ROOT, 'packages', name, 'src')),
  ];
  const found: string[] = [];
  for (const file of roots.flatMap((root) => sourceFiles(root))) {
    for (const [, literal] of readFileSync(file, 'utf8').matchAll(/['"`]([a-z][a-z0-9.>*-]*)['"`]/g)) {
      if (literal !== undefined && subjects.has(literal)) found.push(`${relative(ROOT, file)}: ${literal}`);
    }
  }
  expect(found).toEqual([]);
});
