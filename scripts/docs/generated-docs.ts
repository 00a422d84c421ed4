/** Every generated document: where it lives and how it is rendered. */
import { fileURLToPath } from 'node:url';
import { SubjectTable } from '@pag/contracts';
import { renderNatsServerConfig } from '../../packages/kit/src/bus/nats-server-config.ts';
import { renderErrorsMd } from './errors-md.ts';

export const GENERATED_DOCS = [
  { path: fileURLToPath(new URL('../../docs/errors.md', import.meta.url)), render: renderErrorsMd },
  {
    path: fileURLToPath(new URL('../../deploy/nats/nats-server.conf', import.meta.url)),
    render: () => renderNatsServerConfig(SubjectTable),
  },
];
