/**
 * The path notation of the route table and what it compiles to. `:name` is one segment, a final
 * `*name` is the rest of the path (possibly empty). This notation is the matcher's only: every
 * document and message shows the OpenAPI form (`{name}`, the rest of the path as `{path}`), the
 * route's `path`; its `pattern` is what is compiled here. Paths are matched exactly as sent: no case
 * folding, no slash collapsing, no dot-segment resolution, so one request has one meaning here
 * and at the service it is forwarded to.
 */

export interface CompiledPath {
  readonly pattern: string;
  /** OpenAPI form: `/api/v1/handshakes/{handshakeId}/status`. */
  readonly openApiPath: string;
  /** Names of the one-segment parameters, in order. */
  readonly paramNames: readonly string[];
  /** Name of the final rest-of-path parameter, if any. */
  readonly wildcard: string | null;
  readonly isStatic: boolean;
  /** Raw (still percent-encoded) captures by name, or null when the path does not fit. */
  match(path: string): Record<string, string> | null;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compilePath(pattern: string): CompiledPath {
  if (!pattern.startsWith('/')) throw new Error(`Route path must start with "/": ${pattern}`);
  const segments = pattern.split('/').slice(1);
  const paramNames: string[] = [];
  let wildcard: string | null = null;
  const regexParts: string[] = [];
  const openApiParts: string[] = [];
  segments.forEach((segment, index) => {
    const name = segment.slice(1);
    // A shown path (`{name}`) compiled by mistake would match only itself, literally.
    if (segment.includes('{')) throw new Error(`Compile a route's pattern, not its shown path: ${pattern}`);
    if (segment.startsWith(':') || segment.startsWith('*')) {
      if (!NAME.test(name)) throw new Error(`Bad parameter name in ${pattern}`);
      if (segment.startsWith('*') && index !== segments.length - 1) {
        throw new Error(`A rest-of-path parameter must come last: ${pattern}`);
      }
      if (segment.startsWith('*')) wildcard = name;
      else paramNames.push(name);
      regexParts.push(segment.startsWith('*') ? '(.*)' : '([^/]+)');
      openApiParts.push(`{${name}}`);
    } else {
      regexParts.push(escapeRegExp(segment));
      openApiParts.push(segment);
    }
  });
  const names = wildcard === null ? paramNames : [...paramNames, wildcard];
  const regex = new RegExp(`^/${regexParts.join('/')}$`);
  return {
    pattern,
    openApiPath: `/${openApiParts.join('/')}`,
    paramNames,
    wildcard,
    isStatic: names.length === 0,
    match(path) {
      const found = regex.exec(path);
      if (found === null) return null;
      return Object.fromEntries(names.map((name, i) => [name, found[i + 1] ?? '']));
    },
  };
}

/** `/api/v1/services/:service/*path` → `/api/v1/services/{service}/{path}`. */
export function toOpenApiPath(pattern: string): string {
  return compilePath(pattern).openApiPath;
}

function decode(raw: string): string | null {
  // Nothing encoded: decodeURIComponent would return it unchanged, through a try per segment.
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

function isDotSegment(part: string): boolean {
  return part === '.' || part === '..';
}

/**
 * Decodes a one-segment parameter; null when it is malformed, empty, a dot segment, or hides a
 * slash, backslash or control character behind percent-encoding.
 */
export function decodeSegment(raw: string): string | null {
  const value = decode(raw);
  if (value === null || value.length === 0 || isDotSegment(value)) return null;
  if (value.includes('/') || value.includes('\\') || CONTROL.test(value)) return null;
  return value;
}

/**
 * Checks a rest-of-path value without changing it (it is forwarded byte for byte): refuses
 * malformed encoding, control characters, and any `.`/`..` segment, also one assembled from
 * encoded slashes (`a%2F..%2Fadmin`). Encoded slashes alone stay allowed (`group%2Fproject`).
 * Refuses an empty segment too (`//`, also encoded), but for a trailing slash: that is how an
 * absolute or protocol-relative URL hides in a path (`https://evil.example/x`, `//evil.example`),
 * which a client resolving URLs would send to another host, and no API we forward to names a
 * resource with an empty segment.
 */
export function isSafeRestOfPath(raw: string): boolean {
  const segments = raw.split('/');
  for (const [index, segment] of segments.entries()) {
    const value = decode(segment);
    if (value === null || CONTROL.test(value)) return false;
    const parts = value.split(/[/\\]/);
    if (parts.some(isDotSegment)) return false;
    const trailingSlash = index === segments.length - 1 && value === '';
    if (!trailingSlash && parts.some((part) => part === '')) return false;
  }
  return true;
}
