/**
 * The upload form of /dashboard/knowledge (multipart/form-data): a .md or .txt file becomes a
 * knowledge document. The body is read up to UPLOAD_BODY_MAX (a 413 page beyond) and parsed by
 * Node's own fetch implementation (undici's Response.formData, the WHATWG multipart parser), so
 * no hand-written multipart parsing and no new dependency.
 *
 * What it enforces: only a file named *.md or *.txt; at most KNOWLEDGE_MAX_BYTES; UTF-8 only (a
 * byte sequence that is not UTF-8 is refused, never replaced); a BOM is dropped; line breaks are
 * kept as LF. Every refusal is a 4xx AppError naming the problem, so the page can re-show the
 * form with the title and kind the owner typed (a body too large to read is the one exception).
 * Text fields follow formFields' rules: single values, storable text.
 */
import { AppError, KNOWLEDGE_MAX_BYTES, unstorableReason } from '@pag/contracts';
import type { Context } from 'koa';

/** Bodies up to this are read whole, so an oversized file is refused beside its form. */
export const UPLOAD_BODY_MAX = 4 * KNOWLEDGE_MAX_BYTES;

const EXTENSIONS = /\.(md|markdown|txt)$/i;

export interface Upload {
  fields: Record<string, string>;
  /** The file field, when one was chosen. */
  file: { name: string; bytes: Uint8Array } | null;
}

async function readBody(ctx: Context): Promise<Uint8Array> {
  const tooLarge = () =>
    new AppError(
      'PAYLOAD_TOO_LARGE',
      `The upload is larger than ${UPLOAD_BODY_MAX / 1024} KiB; a document may have at most ${KNOWLEDGE_MAX_BYTES / 1024} KiB.`,
    );
  if (Number(ctx.get('content-length')) > UPLOAD_BODY_MAX) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > UPLOAD_BODY_MAX) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readUpload(ctx: Context): Promise<Upload> {
  if (!ctx.is('multipart/form-data'))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Submit the upload form from its page.');
  const body = await readBody(ctx);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': ctx.get('content-type') } }).formData();
  } catch (error) {
    throw new AppError('INVALID_REQUEST', 'The upload could not be read. Go back and submit it again.', {
      cause: error,
    });
  }
  const fields: Record<string, string> = {};
  let file: Upload['file'] = null;
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    // A repeated field reads as absent, as in formFields.
    if (values.length !== 1) continue;
    const [value] = values;
    if (typeof value === 'string') {
      const reason = unstorableReason(value) ?? unstorableReason(name);
      if (reason !== null) throw new AppError('INVALID_TEXT', `The field ${JSON.stringify(name)} ${reason}.`);
      fields[name] = value;
    } else if (name === 'file' && value !== undefined && value.name !== '') {
      file = { name: value.name, bytes: await value.bytes() };
    }
  }
  return { fields, file };
}

/** The file's text and the title it suggests (its name without the extension). */
export function uploadedText(file: Upload['file']): { title: string; content: string } {
  if (file === null) throw new AppError('INVALID_REQUEST', 'Choose a .md or .txt file to upload.');
  if (!EXTENSIONS.test(file.name))
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `“${file.name}” is not a markdown or text file: upload a .md or .txt file.`,
    );
  if (file.bytes.length === 0) throw new AppError('INVALID_REQUEST', `“${file.name}” is empty.`);
  if (file.bytes.length > KNOWLEDGE_MAX_BYTES)
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `“${file.name}” has ${Math.ceil(file.bytes.length / 1024)} KiB; a document may have at most ${KNOWLEDGE_MAX_BYTES / 1024} KiB.`,
    );
  let text: string;
  try {
    // fatal: bytes that are not UTF-8 are refused, not replaced; a BOM is dropped (ignoreBOM false).
    text = new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
  } catch {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `“${file.name}” is not UTF-8 text. Save it as UTF-8 and upload it again.`,
    );
  }
  return { title: file.name.replace(EXTENSIONS, '').trim(), content: text.replaceAll('\r\n', '\n') };
}
