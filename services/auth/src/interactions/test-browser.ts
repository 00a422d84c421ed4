/**
 * For the router tests: a tiny browser. fetch with manual redirects and a cookie jar that
 * honours Path, Max-Age and Expires (oidc-provider scopes its interaction cookies by path),
 * plus helpers to read our forms.
 */

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires: number | undefined;
  attributes: string;
}

export class Browser {
  readonly #base: string;
  readonly #cookies = new Map<string, StoredCookie>();
  readonly headers: Record<string, string>;

  constructor(base: string, headers: Record<string, string> = {}) {
    this.#base = base;
    this.headers = headers;
  }

  /** The raw Set-Cookie attributes last received for a cookie (for checking flags). */
  cookie(name: string): StoredCookie | undefined {
    return [...this.#cookies.values()].find((cookie) => cookie.name === name);
  }

  setCookie(name: string, value: string, path = '/'): void {
    this.#cookies.set(`${name}|${path}`, { name, value, path, expires: undefined, attributes: '' });
  }

  #cookieHeader(path: string): string {
    const now = Date.now();
    return [...this.#cookies.values()]
      .filter((c) => (c.expires === undefined || c.expires > now) && pathMatches(path, c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  #store(response: Response, requestPath: string): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const split = pair.indexOf('=');
      const name = pair.slice(0, split);
      const value = pair.slice(split + 1);
      let path = requestPath.replace(/\/[^/]*$/, '') || '/';
      let expires: number | undefined;
      for (const attribute of attributes) {
        const [key = '', attributeValue = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = attributeValue;
        if (key.toLowerCase() === 'expires') expires = Date.parse(attributeValue);
        if (key.toLowerCase() === 'max-age') expires = Date.now() + Number(attributeValue) * 1000;
      }
      const key = `${name}|${path}`;
      if (value === '' || (expires !== undefined && expires <= Date.now())) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path, expires, attributes: attributes.join('; ') });
    }
  }

  async request(pathOrUrl: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(pathOrUrl, this.#base);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    const cookie = this.#cookieHeader(url.pathname);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.#store(response, url.pathname);
    return response;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** The hidden CSRF token of the first form on a page. */
export function csrfOf(page: string): string {
  const match = page.match(/name="_csrf" value="([^"]+)"/);
  if (!match?.[1]) throw new Error(`no CSRF field on the page:\n${page}`);
  return match[1];
}

/** The path a 303 sends the browser to (absolute URLs of other origins are returned whole). */
export function locationOf(response: Response, base: string): string {
  const location = response.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${response.status}`);
  const url = new URL(location, base);
  return url.origin === new URL(base).origin ? `${url.pathname}${url.search}` : url.href;
}
