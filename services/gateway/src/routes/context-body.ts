/**
 * The context's answer as bytes. The two large parts, the memory (the brain's JSON text, up to 200
 * entries and 64 KiB of content) and the endpoint list (domain/scope-listing.ts), are kept as
 * UTF-8 buffers, encoded once per memory version and once per scope set; the small parts around
 * them are written per request, and the answer is one buffer, which express sends as it is (its
 * length is the Content-Length). No per-request string of the whole answer is built, flattened,
 * measured and encoded again, and while nothing but the memory is large and nothing changed, the
 * last answer's buffer is sent again: no copy and no allocation of the ~45 kB per request
 * (docs/adr/0075).
 */
import type { GatewayContext } from '@pag/contracts';
import { AppError } from '@pag/contracts';

/** The last body written with a memory, with the text of the parts around the memory in it. */
interface WrittenBody {
  head: string;
  middle: string;
  tail: string;
  endpoints: Buffer;
  body: Buffer;
}

/**
 * A memory's JSON text as UTF-8, and the last answer written with it. Its bytes are held once:
 * after the first answer they are a view of that answer's buffer (which is never written to
 * again), so a kept memory and its last answer cost one copy of the memory, not two.
 */
export class MemoryText {
  #json: Buffer;
  #written: WrittenBody | undefined;

  constructor(json: Buffer) {
    this.#json = json;
  }

  get json(): Buffer {
    return this.#json;
  }

  /** The body last written with this memory, if the parts around it write the same text and list. */
  writtenWith(head: string, middle: string, tail: string, endpoints: Buffer): Buffer | undefined {
    const last = this.#written;
    // The strings are compared by content: each request parses its parts afresh.
    if (last === undefined || last.endpoints !== endpoints) return undefined;
    return last.head === head && last.middle === middle && last.tail === tail ? last.body : undefined;
  }

  /** Keeps `written` as the last body; the memory's bytes are read from it from now on. */
  wrote(written: WrittenBody, at: number): void {
    this.#json = written.body.subarray(at, at + this.#json.length);
    this.#written = written;
  }
}

/** The context as assembled: the memory still the brain's JSON, as UTF-8; the endpoints left to the listing. */
export type ContextParts = Omit<GatewayContext, 'memory' | 'endpoints'> & { memory: MemoryText | null };

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
  if (memory === null) return written([`${head}null${middle}`, endpoints, tail]);
  const again = memory.writtenWith(head, middle, tail, endpoints);
  if (again !== undefined) return again;
  const body = written([head, memory.json, middle, endpoints, tail]);
  memory.wrote({ head, middle, tail, endpoints, body }, Buffer.byteLength(head));
  return body;
}

/** The pieces in one new buffer. */
function written(pieces: Array<string | Buffer>): Buffer {
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
