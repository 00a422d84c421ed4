/**
 * What an operator may store as a connection's credential (storeApiKeyConnection): the owner
 * account, a connector of the catalogue, a label, the value and the scopes the third party
 * granted. The value must be sendable as one HTTP header value (visible ASCII, no spaces or line
 * breaks), so a stored credential can never smuggle a header into the upstream request.
 */
import { AppError, displayName } from '@pag/contracts';
import { z } from 'zod';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';

export const API_KEY_MAX_CHARS = 4096;

const Input = z.object({
  accountId: z.uuid({ message: 'must be the owner account id (a UUID)' }),
  service: z.string(),
  label: displayName(100),
  value: z
    .string()
    .max(API_KEY_MAX_CHARS, `must be at most ${API_KEY_MAX_CHARS} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII without spaces or line breaks (one header value)'),
  scopes: z
    .array(z.string().regex(/^\S{1,200}$/, 'each scope is one word'))
    .max(100)
    .default([]),
});

export type ApiKeyConnectionInput = z.input<typeof Input>;
export type ValidApiKeyConnection = z.output<typeof Input>;

export function parseApiKeyConnection(
  input: ApiKeyConnectionInput,
  connectors: ReadonlyMap<string, ConnectorDefinition>,
): ValidApiKeyConnection {
  const problems: string[] = [];
  const parsed = Input.safeParse(input);
  if (!parsed.success) {
    // Never echo the value: it is a secret.
    for (const issue of parsed.error.issues)
      problems.push(`${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  if (!connectors.has(input.service)) {
    problems.push(
      `service: no connector named "${input.service}" (known: ${[...connectors.keys()].join(', ')})`,
    );
  }
  if (!parsed.success || problems.length > 0) {
    throw new AppError('INVALID_REQUEST', `Cannot store the credential: ${problems.join('; ')}.`);
  }
  return parsed.data;
}
