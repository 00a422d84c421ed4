/**
 * What a message looks like between processes, shared by both buses so they behave alike:
 * payloads are JSON text (each receiver parses its own copy, so no object is shared between
 * sender and receiver), headers follow the NATS header rules.
 */
import type { Headers } from './types.ts';

/** `undefined` travels as `null`, as a JSON codec would send it. */
export function encodePayload(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

export function decodePayload(text: string): unknown {
  return text.length === 0 ? null : JSON.parse(text);
}

/** How long a durable publish waits for its acknowledgement when the caller gives no timeoutMs. */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;

const RESERVED_PREFIX = 'nats-';

/** Printable ASCII except ':', as nats.js checks header names. */
function isValidHeaderName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 33 || c > 126 || c === 58) return false;
  }
  return true;
}

/**
 * Validates and copies headers the way NATS transmits them: values trimmed, no CR/LF, names kept
 * as given, `Nats-*` names dropped (they belong to NATS and JetStream).
 */
export function normalizeHeaders(headers: Headers | undefined): Headers {
  const result: Headers = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!isValidHeaderName(name)) throw new TypeError(`invalid header name "${name}"`);
    if (/[\r\n]/.test(value)) throw new TypeError(`header "${name}" has a line break in its value`);
    if (name.toLowerCase().startsWith(RESERVED_PREFIX)) continue;
    result[name] = value.trim();
  }
  return result;
}
