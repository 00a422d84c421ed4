/**
 * The context's answer as bytes. The two large parts, the memory (the brain's JSON text, up to 200
 * entries and 64 KiB of content) and the endpoint list (domain/scope-listing.ts), are kept as
 * UTF-8 buffers, encoded once per memory version and once per scope set; the small parts around
 * them are written per request, straight into the answer's one buffer, and the large ones copied
 * in. Express sends a buffer as it is (its length is the Content-Length), so no per-request string
 * of the whole answer is built, flattened, measured and encoded again (docs/adr/0075).
 */

import type { GatewayContext } from '@pag/contracts';
import { AppError } from '@pag/contracts';

/** The context as assembled: the memory still the brain's JSON, as UTF-8; the endpoints left to the listing. */
export type ContextParts = Omit<GatewayContext, 'memory' | 'endpoints'> & { memory: Buffer | null };

/**
 * The body, in GatewayContext's order of keys, with two parts spliced in as JSON: the memory as
 * the brain sent it and the endpoint list of the token's scopes. The brain's JSON of the entries
 * is PostgreSQL's, written from typed columns when each entry was stored; BrainContext checked it
 * is an array, and reading and writing 200 entries again here cost more than everything else the
 * gateway does for the context (docs/adr/0043, "Third round"). Every other part is parsed and
 * checked as before, and written here. The bytes are those of the text the gateway wrote before.
 */
export function contextBody(parts: ContextParts, endpoints: Buffer): Buffer {
  const { persona, user, memory, memoryCount, services, unavailable } = parts;
  const head = `{"persona":${JSON.stringify(persona)},"user":${JSON.stringify(user)},"memory":`;
  const middle = `,"memoryCount":${JSON.stringify(memoryCount)},"services":${JSON.stringify(services)},"endpoints":`;
  const tail = `,"unavailable":${JSON.stringify(unavailable)}}`;
  const pieces =
    memory === null ? [`${head}null${middle}`, endpoints, tail] : [head, memory, middle, endpoints, tail];
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  // Not zero-filled: every byte is written below, which the check after it makes sure of.
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? body.write(piece, at) : piece.copy(body, at);
  if (at !== length)
    throw new AppError('INTERNAL_ERROR', `The context's body came to ${at} of ${length} bytes.`);
  return body;
}
