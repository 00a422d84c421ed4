/**
 * Finds a key that appears twice in one JSON object. JSON.parse keeps the last of duplicates
 * silently, so `{"scope":"read","scope":"full"}` reads one way to a checker that looks at the
 * first and another to one that looks at the last; the gateway refuses such bodies instead.
 * Keys are compared after unescaping (`"a"` and `"\u0061"` are the same key).
 *
 * Only for text JSON.parse accepted: it does not validate, it walks the structure in one pass.
 */
export function findDuplicateKey(json: string): string | null {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i += 1) {
    const char = json[i];
    if (char === '"') {
      const start = i;
      for (i += 1; json[i] !== '"'; i += 1) if (json[i] === '\\') i += 1;
      const keys = open.at(-1);
      if (expectKey && keys != null) {
        const key = JSON.parse(json.slice(start, i + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
    } else if (char === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      open.push(null);
      expectKey = false;
    } else if (char === '}' || char === ']') {
      open.pop();
      expectKey = false;
    } else if (char === ':') {
      expectKey = false;
    } else if (char === ',') {
      expectKey = open.at(-1) != null;
    }
  }
  return null;
}
