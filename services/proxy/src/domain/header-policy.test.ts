import { describe, expect, test } from '@jest/globals';
import { isCallerOnlyHeader, isOriginScopedHeader } from './header-policy.ts';

describe('header policy', () => {
  test("the caller's credentials, identity, addresses and method overrides never go upstream", () => {
    for (const name of [
      'Authorization',
      'cookie',
      'Proxy-Authorization',
      'pag-account-id',
      'pag-scopes',
      'pag-anything-new',
      'x-request-id',
      'X-Forwarded-For',
      'x-forwarded-host',
      'forwarded',
      'x-real-ip',
      'X-HTTP-Method-Override',
      'x-http-method',
      'X-Method-Override',
      'x-original-url',
      'X-Rewrite-URL',
    ]) {
      expect([name, isCallerOnlyHeader(name)]).toEqual([name, true]);
    }
    for (const name of ['accept', 'content-type', 'user-agent', 'if-none-match', 'notion-version']) {
      expect([name, isCallerOnlyHeader(name)]).toEqual([name, false]);
    }
  });

  test("a third party's cookies, CORS and origin policies never come back", () => {
    for (const name of [
      'Set-Cookie',
      'access-control-allow-origin',
      'Access-Control-Allow-Credentials',
      'alt-svc',
      'strict-transport-security',
      'content-security-policy',
      'cache-control',
    ]) {
      expect([name, isOriginScopedHeader(name)]).toEqual([name, true]);
    }
    for (const name of [
      'content-type',
      'content-length',
      'etag',
      'link',
      'x-ratelimit-remaining',
      'location',
    ]) {
      expect([name, isOriginScopedHeader(name)]).toEqual([name, false]);
    }
  });
});
