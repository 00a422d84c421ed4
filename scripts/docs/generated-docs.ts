/** Every generated document: where it lives and how it is rendered. */
import { fileURLToPath } from 'node:url';
import { renderErrorsMd } from './errors-md.ts';

export const GENERATED_DOCS = [
  { path: fileURLToPath(new URL('../../docs/errors.md', import.meta.url)), render: renderErrorsMd },
];
