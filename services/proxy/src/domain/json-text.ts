/**
 * The longest start of a text whose JSON string literal (quotes included), as UTF-8, takes at most
 * `maxBytes`: what JSON.stringify writes for each character (2 for `"`, `\\` and the short
 * escapes, 6 for other control characters and lone surrogates, else its UTF-8 length). The cut
 * never splits a surrogate pair.
 */
export function jsonTextPrefix(text: string, maxBytes: number): string {
  let used = 2;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && isLow(text.charCodeAt(i + 1));
    const cost = pair ? 4 : encodedSize(code);
    if (used + cost > maxBytes) break;
    used += cost;
    i += pair ? 2 : 1;
  }
  return i === text.length ? text : text.slice(0, i);
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function encodedSize(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20)
    return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate (a pair is counted above) is written as \\uXXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return 3;
}
