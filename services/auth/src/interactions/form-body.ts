/**
 * Reads the urlencoded body of our forms: only that content type, at most 16 KB (the brain's
 * editors more, formBodyOf), every field a
 * single string (a repeated or missing field reads as absent, never as an array), every value
 * text PostgreSQL can store: a NUL character (%00) in any field is a 400 INVALID_TEXT naming the
 * field, before any handler looks an account, agent or handshake up with it. (Malformed UTF-8
 * such as %C3%28 is kept as the percent-encoded text by the parser, which PostgreSQL stores.)
 */
import { bodyParser } from '@koa/bodyparser';
import { AppError, unstorableReason } from '@pag/contracts';
import type { Context, Middleware } from 'koa';

/**
 * The body parser of forms up to `kib` KiB (as sent: percent-encoded). formBody is the 16 KB of
 * every ordinary form; the brain's editors (a persona's instructions, a knowledge document) take
 * more, sized from their contracts' limits.
 */
export function formBodyOf(kib: number): Middleware {
  return bodyParser({
    enableTypes: ['form'],
    formLimit: `${kib}kb`,
    onError: (error) => {
      if ((error as { status?: unknown }).status === 413) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The form is larger than ${kib} KB.`, { cause: error });
      }
      throw new AppError('INVALID_REQUEST', 'The form could not be read. Go back and submit it again.', {
        cause: error,
      });
    },
  });
}

export const formBody: Middleware = formBodyOf(16);

export function formFields(ctx: Context): Record<string, string> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Submit the form from its page.');
  }
  const body: unknown = ctx.request.body;
  const fields: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return fields;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') continue;
    const reason = unstorableReason(value) ?? unstorableReason(name);
    if (reason !== null) {
      throw new AppError('INVALID_TEXT', `The field ${printable(name)} ${reason}.`);
    }
    fields[name] = value;
  }
  return fields;
}

/** A field name fit for a message: what cannot be shown is shown as U+FFFD. */
function printable(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  return JSON.stringify(name.toWellFormed().replace(/[\u0000-\u001f\u007f]/g, '\ufffd'));
}
