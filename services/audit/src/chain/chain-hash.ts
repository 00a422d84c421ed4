/**
 * The hash chain of the audit log, in one place for the writer and for verify:
 * `hash = hex(SHA-256(previous hash, 32 bytes ‖ UTF-8(JCS(content))))`, where `content` is the
 * row as an AuditRecord without `seq` and `hash` (nulls included). The first row's previous hash
 * is GENESIS_HASH. The position is bound by the previous hash (and by signed checkpoints), not by
 * hashing `seq`. JCS is RFC 8785, by the `canonicalize` package (by one of the RFC's authors).
 */
import { createHash } from 'node:crypto';
import type { AuditRecord } from '@pag/contracts';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS (`module.exports = serialize`, lib/canonicalize.js) while its .d.ts says
// `export default`: under `nodenext` TypeScript reads that as `exports.default`, but Node's default
// import of a CommonJS module is module.exports itself, the function.
const canonicalize = canonicalizeModule as unknown as typeof canonicalizeModule.default;

/** The previous hash of the log's first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a row's hash covers: every field of its AuditRecord but its place (`seq`) and the hash. */
export type ChainContent = Omit<AuditRecord, 'seq' | 'hash'>;

const HEX_HASH = /^[0-9a-f]{64}$/;

/** The fields of ChainContent, listed so that a record's extra fields (seq, hash) never slip in. */
export const CONTENT_FIELDS = [
  'eventId',
  'kind',
  'source',
  'requestId',
  'time',
  'recordedAt',
  'accountId',
  'clientId',
  'agentId',
  'tokenKind',
  'actorType',
  'actorId',
  'action',
  'target',
  'clientAddress',
  'method',
  'path',
  'status',
  'decision',
  'reason',
  'latencyMs',
  'bytesIn',
  'bytesOut',
  'detail',
] as const satisfies readonly (keyof ChainContent)[];

/** The content of a record (a stored row read back, or one about to be written). */
export function chainContent(record: ChainContent): ChainContent {
  const content: Record<string, unknown> = {};
  for (const field of CONTENT_FIELDS) {
    const value = record[field];
    // JCS drops an undefined member; a missing field must not hash like an absent one would.
    if (value === undefined) throw new TypeError(`audit record without ${field}`);
    content[field] = value;
  }
  return content as ChainContent;
}

/**
 * The content's members in RFC 8785's order (by the UTF-16 code units of their names, which is
 * how Array.prototype.sort orders strings), each with its opening: `{"accountId":`, `,"action":`.
 */
const CANONICAL_MEMBERS = [...CONTENT_FIELDS]
  .sort()
  .map((field, index) => [field, `${index === 0 ? '{' : ','}${JSON.stringify(field)}:`] as const);

/**
 * RFC 8785 canonical JSON of a record's content: exactly `canonicalize(chainContent(record))`,
 * written out for the fixed set of members. The package sorts the names and recurses through
 * every value for each row; here the order is known, a text, number or null is JSON.stringify's
 * (what the package uses for every primitive), and only `detail` (an object of any shape) goes
 * through the package (its generic walk was most of the writer's CPU per row: docs/adr/0073).
 */
export function canonicalContent(record: ChainContent): string {
  let text = '';
  for (const [field, opening] of CANONICAL_MEMBERS) {
    const value: unknown = record[field];
    // JCS drops an undefined member; a missing field must not hash like an absent one would.
    if (value === undefined) throw new TypeError(`audit record without ${field}`);
    const json = typeof value === 'object' && value !== null ? canonicalize(value) : JSON.stringify(value);
    if (json === undefined) throw new TypeError(`audit record ${field} has no JSON form`);
    text += opening + json;
  }
  return `${text}}`;
}

/** The hash of a row that follows a row hashed `prevHash`. */
export function chainHash(prevHash: string, record: ChainContent): string {
  if (!HEX_HASH.test(prevHash)) throw new TypeError('previous hash must be 64 lowercase hex digits');
  return createHash('sha256')
    .update(Buffer.from(prevHash, 'hex'))
    .update(canonicalContent(record), 'utf8')
    .digest('hex');
}
