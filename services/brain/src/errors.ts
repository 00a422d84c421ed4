/**
 * The brain's errors are the contracts' AppError (it has no HTTP app: the bus carries code,
 * status, message and hint to the gateway, which answers with them). This builds the 400 for
 * what fails a schema, naming every field that failed and why, never echoing the value.
 */
import { AppError } from '@pag/contracts';
import type { z } from 'zod';

export function invalidRequest(what: string, error: z.ZodError, prefix = ''): AppError {
  const problems = error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${field || '(message)'}: ${issue.message}`;
  });
  return new AppError('INVALID_REQUEST', `Invalid ${what}: ${problems.join('; ')}`, { cause: error });
}
