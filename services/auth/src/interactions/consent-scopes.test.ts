/**
 * Reading a consent prompt: scopes in plain words, only the gateway as a resource, and the CSP
 * form-action source that lets the final redirect reach the client.
 */
import { describe, expect, test } from '@jest/globals';
import { AppError, describeScope, protectedResourceIds } from '@pag/contracts';
import { readConsentRequest, redirectDestination, redirectFormTarget } from './consent-scopes.ts';

const API = 'https://gateway.example/api/v1';
const GATEWAY = new Set(protectedResourceIds('https://gateway.example'));

describe('readConsentRequest', () => {
  test('lists OIDC and API scopes once each, described in plain words', () => {
    const request = readConsentRequest(
      {
        missingOIDCScope: ['openid', 'offline_access'],
        missingResourceScopes: { [API]: ['chat', 'services:mail:write', 'odd'] },
      },
      GATEWAY,
    );
    expect(request.oidcScopes).toEqual(['openid', 'offline_access']);
    expect(request.apiScopes).toEqual(['chat', 'services:mail:write', 'odd']);
    expect(request.resource).toBe(API);
    expect(request.described.map((entry) => entry.scope)).toEqual([
      'openid',
      'offline_access',
      'chat',
      'services:mail:write',
      'odd',
    ]);
    expect(request.described[3]?.description).toBe(describeScope('services:mail:write'));
    expect(request.described[3]?.description).toContain('mail');
    expect(request.described[4]?.description).toBe('The permission "odd" (no description available).');
  });

  test('takes the MCP endpoint and the base URL as the gateway too, and names which was asked', () => {
    for (const resource of ['https://gateway.example/mcp', 'https://gateway.example/']) {
      const request = readConsentRequest({ missingResourceScopes: { [resource]: ['chat'] } }, GATEWAY);
      expect(request).toMatchObject({ resource, apiScopes: ['chat'] });
    }
  });

  test('refuses a resource other than the gateway', () => {
    expect(() =>
      readConsentRequest({ missingResourceScopes: { 'https://elsewhere.example/': ['chat'] } }, GATEWAY),
    ).toThrow(AppError);
  });
});

describe('redirect targets', () => {
  test('web and loopback redirects admit their origin; native apps their scheme; junk nothing', () => {
    expect(redirectFormTarget('https://app.example:8443/cb?x=1')).toEqual(['https://app.example:8443']);
    expect(redirectFormTarget('http://127.0.0.1:5555/callback')).toEqual(['http://127.0.0.1:5555']);
    expect(redirectFormTarget('com.example.app:/oauth')).toEqual(['com.example.app:']);
    expect(redirectFormTarget('not a url; script-src *')).toEqual([]);
    expect(redirectFormTarget(undefined)).toEqual([]);
  });

  test('the page names the host, or the whole target when there is none', () => {
    expect(redirectDestination('https://app.example/cb')).toBe('app.example');
    expect(redirectDestination('com.example.app:/oauth')).toBe('com.example.app:/oauth');
  });
});
