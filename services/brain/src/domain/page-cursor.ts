/**
 * The knowledge base's page cursors: opaque to clients (base64url of a small JSON), and each says
 * which listing made it, so a cursor of the search (`?q=`, an offset into the ranked matches)
 * cannot be passed to the plain listing (a keyset: the last row's update time and id) or back.
 * A cursor that is not one of ours, or of the other listing, is a 400 naming `cursor`, never a 500
 * or a silent first page.
 */
import { AppError } from '@pag/contracts';

/** The plain listing's position: after this row in (updatedAt desc, id asc) order. */
export interface AfterRow {
  updatedAt: Date;
  id: string;
}

type Decoded = { kind: 'after'; after: AfterRow } | { kind: 'offset'; offset: number };

export function encodeAfter(row: AfterRow): string {
  return encode({ a: [row.updatedAt.toISOString(), row.id] });
}

export function encodeOffset(offset: number): string {
  return encode({ o: offset });
}

/** The keyset position of a plain listing's cursor; 400 for anything else. */
export function decodeAfter(cursor: string): AfterRow {
  const decoded = decode(cursor);
  if (decoded?.kind !== 'after') throw badCursor('the listing without q');
  return decoded.after;
}

/** The offset of a search cursor; 400 for anything else. */
export function decodeOffset(cursor: string): number {
  const decoded = decode(cursor);
  if (decoded?.kind !== 'offset') throw badCursor('this search (q)');
  return decoded.offset;
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decode(cursor: string): Decoded | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { a, o } = value as { a?: unknown; o?: unknown };
  if (typeof o === 'number' && Number.isSafeInteger(o) && o > 0) return { kind: 'offset', offset: o };
  if (Array.isArray(a) && a.length === 2 && typeof a[0] === 'string' && typeof a[1] === 'string') {
    const updatedAt = new Date(a[0]);
    if (!Number.isNaN(updatedAt.getTime()) && updatedAt.toISOString() === a[0])
      return { kind: 'after', after: { updatedAt, id: a[1] } };
  }
  return null;
}

function badCursor(listing: string): AppError {
  return new AppError(
    'INVALID_REQUEST',
    `cursor: not a cursor of ${listing}; pass the nextCursor of the previous page.`,
  );
}
