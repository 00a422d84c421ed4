import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { invalidRequest } from './invalid-request.ts';

describe('invalidRequest', () => {
  const Schema = z.object({ content: z.string().max(3), tags: z.array(z.string()) });

  test('names every failing field with the prefix, never the value', () => {
    const result = Schema.safeParse({ content: 'secret-value', tags: [7] });
    if (result.success) throw new Error('expected a failure');
    const error = invalidRequest('memory entry', result.error, { prefix: 'body' });
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid memory entry: body\.content: .+; body\.tags\.0: .+\.$/);
    expect(error.message).not.toContain('secret-value');
  });

  test('an issue about the whole value uses the given name', () => {
    const result = Schema.safeParse('text');
    if (result.success) throw new Error('expected a failure');
    expect(invalidRequest('body', result.error, { whole: '(body)' }).message).toMatch(
      /^Invalid body: \(body\): /,
    );
  });

  test('a message written as a sentence does not end the list with two periods', () => {
    const Zone = z.object({
      timezone: z
        .string()
        .refine(() => false, { message: 'Must be an IANA time-zone name such as Europe/Berlin.' }),
      name: z.string().refine(() => false, { message: 'Must be short.' }),
    });
    const result = Zone.safeParse({ timezone: 'Mars/Olympus', name: 'x' });
    if (result.success) throw new Error('expected a failure');
    expect(invalidRequest('body', result.error).message).toBe(
      'Invalid body: timezone: Must be an IANA time-zone name such as Europe/Berlin; name: Must be short.',
    );
  });
});
