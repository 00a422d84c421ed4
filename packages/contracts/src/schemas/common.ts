/**
 * Building blocks shared by the body schemas: names, identifiers, timestamps, size limits that
 * count bytes (the limits are in KiB of UTF-8, as the HTTP body limit is), and time-zone names.
 */
import { z } from 'zod';
import { SCOPE_NAME_PATTERN } from '../scopes/scope-grammar.ts';
import { isStorableText } from './storable-text.ts';

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** Control characters other than tab, line feed and carriage return. */
function hasControlCharacters(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return true;
  }
  return false;
}

/** Any text a client sends that may be stored: valid Unicode without NUL (storable-text.ts). */
export function storableString() {
  return z.string().refine(isStorableText, {
    message: 'Must be valid Unicode without NUL characters (U+0000) or unpaired surrogates.',
  });
}

/**
 * Text of 1..maxChars characters (UTF-16 units), valid Unicode, without control characters other
 * than tab and newlines.
 */
export function plainText(maxChars: number) {
  return storableString()
    .min(1)
    .max(maxChars)
    .refine((text) => !hasControlCharacters(text), { message: 'Must not contain control characters.' });
}

/** Text of 1..maxBytes bytes of UTF-8 (the unit of the HTTP body limit), as plainText otherwise. */
export function boundedText(maxBytes: number) {
  return plainText(maxBytes).refine((text) => utf8Length(text) <= maxBytes, {
    message: `Must be at most ${maxBytes} bytes of UTF-8.`,
  });
}

/**
 * What a name shown to people (an agent or token, a device, a connection label) may not contain:
 * control characters (C0 including tab and line breaks, DEL, C1), line and paragraph separators,
 * and the bidirectional overrides and isolates that make a name read as another (U+202A–U+202E,
 * U+2066–U+2069).
 */
const NAME_FORBIDDEN = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** Whether `name` has none of the characters a name may not contain (see displayName). */
export function isCleanName(name: string): boolean {
  return !NAME_FORBIDDEN.test(name);
}

export const NAME_CHARACTERS_MESSAGE =
  'must not contain control characters (tabs, line breaks, bidirectional overrides)';

/**
 * The one rule for names shown to people, wherever they are typed (API bodies, dashboard forms,
 * the operator CLI): trimmed, 1..maxChars characters (UTF-16 units), one line of visible text,
 * valid Unicode (storableString).
 */
export function displayName(maxChars: number) {
  return storableString()
    .trim()
    .min(1, `must have 1 to ${maxChars} characters`)
    .max(maxChars, `must have 1 to ${maxChars} characters`)
    .refine(isCleanName, { message: NAME_CHARACTERS_MESSAGE });
}

/** A connected-service name as it appears in scopes and proxy paths. */
export const ServiceName = z
  .string()
  .regex(
    SCOPE_NAME_PATTERN,
    'Lowercase letters, digits, "_" and "-", starting with a letter or digit, at most 64.',
  )
  .describe('Name of a connected service, as in scopes and proxy paths.')
  .meta({ examples: ['github'] });

/** An opaque identifier chosen by the server. */
export const ResourceId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'Letters, digits, "_" and "-".');

/** An instant in UTC, RFC 3339 with `Z`. */
export const Timestamp = z.iso
  .datetime()
  .describe('An instant, RFC 3339 in UTC.')
  .meta({
    examples: ['2026-11-22T09:30:00Z'],
  });

let knownTimeZones: ReadonlySet<string> | null = null;

/** Whether the runtime's ICU knows this IANA time-zone name (canonical names and aliases). */
export function isTimeZone(name: string): boolean {
  knownTimeZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (knownTimeZones.has(name)) return true;
  // supportedValuesOf lists canonical names only; aliases such as UTC or Asia/Calcutta are valid too
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z]/.test(name);
  } catch {
    return false;
  }
}

export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: 'Must be an IANA time-zone name such as Europe/Berlin.' })
  .describe('An IANA time-zone name.')
  .meta({ examples: ['Europe/Berlin'] });
