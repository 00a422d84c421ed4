/**
 * A small browser for tests: a cookie jar that honours Path, Max-Age and Expires (oidc-provider
 * scopes its interaction cookies by path), manual redirects, and HTML forms filled by field name
 * and submitted as a person would (hidden fields, such as CSRF tokens, are sent as the page set
 * them).
 */

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires: number | undefined;
  /** The raw Set-Cookie attributes, for checking flags. */
  attributes: string;
}

export interface Page {
  url: URL;
  status: number;
  html: string;
  headers: Headers;
}

export interface Form {
  action: URL;
  method: string;
  fields: Map<string, string>;
}

export class Browser {
  readonly #base: string;
  readonly #cookies = new Map<string, StoredCookie>();
  /** Sent with every request (e.g. X-Forwarded-* in tests of a service behind the gateway). */
  readonly headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  /** `send` makes every request (global fetch unless given: e.g. one that notes each answer). */
  constructor(base: string, headers: Record<string, string> = {}, send: typeof fetch = fetch) {
    this.#base = base;
    this.headers = headers;
    this.#fetch = send;
  }

  cookie(name: string): StoredCookie | undefined {
    return [...this.#cookies.values()].find((cookie) => cookie.name === name);
  }

  setCookie(name: string, value: string, path = '/'): void {
    this.#cookies.set(`${name}|${path}`, { name, value, path, expires: undefined, attributes: '' });
  }

  /** One request, redirects not followed. */
  async request(pathOrUrl: string | URL, init: RequestInit = {}): Promise<Response> {
    const url = new URL(pathOrUrl, this.#base);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    const cookie = this.#cookieHeader(url.pathname);
    if (cookie) headers.set('cookie', cookie);
    const response = await this.#fetch(url, { ...init, headers, redirect: 'manual' });
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

  /** Requests `url`, following redirects while they stay on our origin; stops at the first that leaves it. */
  async open(url: string | URL, init: RequestInit = {}): Promise<Page> {
    const origin = new URL(this.#base).origin;
    let target = new URL(url, this.#base);
    let request: RequestInit = init;
    for (let hop = 0; hop < 10; hop += 1) {
      const response = await this.request(target, request);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        const next = new URL(location, target);
        if (next.origin !== origin)
          return { url: next, status: response.status, html: '', headers: response.headers };
        target = next;
        request = {};
        continue;
      }
      return { url: target, status: response.status, html: await response.text(), headers: response.headers };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Fills a form (the first, or the first whose action contains `actionPart`) and submits it. */
  async submit(page: Page, values: Record<string, string>, actionPart?: string): Promise<Page> {
    const forms = parseForms(page);
    const form =
      actionPart === undefined ? forms[0] : forms.find((f) => f.action.pathname.includes(actionPart));
    if (form === undefined)
      throw new Error(`no form ${actionPart ?? ''} on ${page.url} (${page.status}):\n${page.html}`);
    for (const [name, value] of Object.entries(values)) form.fields.set(name, value);
    const body = new URLSearchParams([...form.fields]);
    if (form.method === 'get') {
      form.action.search = body.toString();
      return this.open(form.action);
    }
    return this.open(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
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

/** The path a redirect sends the browser to (absolute URLs of other origins are returned whole). */
export function locationOf(response: Response, base: string): string {
  const location = response.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${response.status}`);
  const url = new URL(location, base);
  return url.origin === new URL(base).origin ? `${url.pathname}${url.search}` : url.href;
}

const decode = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag);
  return match === null ? undefined : decode(match[2] ?? match[3] ?? '');
}

/** The forms of a page with their fields (unchecked boxes and buttons left out). */
export function parseForms(page: Page): Form[] {
  const forms: Form[] = [];
  for (const match of page.html.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/gi)) {
    const html = match[0];
    const open = /<form\b[^>]*>/i.exec(html)?.[0] ?? '';
    const fields = new Map<string, string>();
    for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input[0], 'name');
      const type = (attribute(input[0], 'type') ?? 'text').toLowerCase();
      if (name === undefined || type === 'submit' || type === 'button') continue;
      if ((type === 'checkbox' || type === 'radio') && !/\schecked\b/i.test(input[0])) continue;
      fields.set(name, attribute(input[0], 'value') ?? '');
    }
    forms.push({
      action: new URL(attribute(open, 'action') ?? page.url.href, page.url),
      method: (attribute(open, 'method') ?? 'get').toLowerCase(),
      fields,
    });
  }
  return forms;
}

/** Signs an owner up through the /signup form, leaving the browser signed in. */
export async function signUp(browser: Browser, owner: { email: string; password: string }): Promise<Page> {
  const form = await browser.open('/signup');
  const page = await browser.submit(form, {
    email: owner.email,
    password: owner.password,
    confirm: owner.password,
  });
  if (page.status >= 400) throw new Error(`sign-up failed (${page.status}):\n${page.html}`);
  return page;
}
