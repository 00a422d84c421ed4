/**
 * The one way a schema failure becomes a client error, for every service and every transport
 * (HTTP bodies, bus messages, form fields, config is separate): 400 INVALID_REQUEST whose message
 * names each field that failed and why, in the order zod reports them, and never echoes a value
 * (zod's messages describe the expectation, not the input; a secret typed into the wrong field
 * stays out of logs and answers).
 */
import type { z } from 'zod';
import { AppError } from './errors.ts';

export interface InvalidRequestOptions {
  /** Put before every field path, e.g. `body` when the schema parsed only the body. */
  prefix?: string;
  /** The name of the value itself when an issue has an empty path (the whole body, say). */
  whole?: string;
}

/**
 * `field.path: why` for each issue; a message of our schemas written as a sentence loses its
 * final period, so the joined list ends with one (not `Europe/Berlin..`).
 */
export function zodProblems(error: z.ZodError, options: InvalidRequestOptions = {}): string[] {
  const prefix = options.prefix ?? '';
  return error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${field || (options.whole ?? '(message)')}: ${issue.message.replace(/\.$/, '')}`;
  });
}

/** 400 `Invalid <what>: field: why; field: why.` with the zod error as its cause. */
export function invalidRequest(
  what: string,
  error: z.ZodError,
  options: InvalidRequestOptions = {},
): AppError {
  return new AppError('INVALID_REQUEST', `Invalid ${what}: ${zodProblems(error, options).join('; ')}.`, {
    cause: error,
  });
}
