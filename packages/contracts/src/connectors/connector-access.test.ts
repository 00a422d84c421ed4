import { describe, expect, test } from '@jest/globals';
import { matchRoute, requiredScope } from '../routes/match-route.ts';
import { accessOf, methodOverrideIn } from './connector-access.ts';

const scopeOf = (method: string, path: string) => {
  const found = matchRoute(method, path);
  if (found === null || !('route' in found)) throw new Error(`no route for ${method} ${path}`);
  return requiredScope(found.route, found.params, method);
};

describe('accessOf', () => {
  test('Slack: only the listed read methods read, whatever else a GET names', () => {
    expect(accessOf('slack', 'GET', 'conversations.list')).toBe('read');
    expect(accessOf('slack', 'HEAD', 'users.info')).toBe('read');
    for (const path of [
      'chat.postMessage',
      'chat.delete',
      'auth.revoke',
      'conversations.list/',
      'conversations%2Elist',
      'Conversations.list',
      'conversations.list/chat.postMessage',
      '',
    ]) {
      expect([path, accessOf('slack', 'GET', path)]).toEqual([path, 'write']);
    }
  });

  test('only GET and HEAD can read; REST connectors and unknown names go by the method', () => {
    expect(accessOf('slack', 'POST', 'conversations.list')).toBe('write');
    expect(accessOf('github', 'GET', 'repos/octo/x')).toBe('read');
    expect(accessOf('github', 'DELETE', 'repos/octo/x')).toBe('write');
    expect(accessOf('nowhere', 'GET', 'x')).toBe('read');
    expect(accessOf('nowhere', 'PUT', 'x')).toBe('write');
    expect(accessOf('__proto__', 'GET', 'x')).toBe('read');
  });

  test('the gateway and the proxy route need the scope the connector decides', () => {
    expect(scopeOf('GET', '/api/v1/services/slack/chat.postMessage?channel=C1&text=hi')).toBe(
      'services:slack:write',
    );
    expect(scopeOf('GET', '/api/v1/services/slack/conversations.list')).toBe('services:slack:read');
    expect(scopeOf('GET', '/api/v1/services/github/repos/octo/x')).toBe('services:github:repos:read');
  });
});

describe('methodOverrideIn', () => {
  test('names the override parameter, in any case or encoding', () => {
    expect(methodOverrideIn('github', 'per_page=5&_method=DELETE')).toBe('_method');
    expect(methodOverrideIn('stripe', '_METHOD=post')).toBe('_METHOD');
    expect(methodOverrideIn('notion', '%5Fmethod=PATCH')).toBe('_method');
    expect(methodOverrideIn('google-calendar', '%24httpMethod=DELETE')).toBe('$httpMethod');
    expect(methodOverrideIn('figma', 'x-http-method-override=PUT')).toBe('x-http-method-override');
    expect(methodOverrideIn('nowhere', '_method=DELETE')).toBe('_method');
  });

  test('leaves other parameters, and Slack, whose method names the call, alone', () => {
    expect(methodOverrideIn('github', 'method=x&payment_method=pm_1&q=_method')).toBeNull();
    expect(methodOverrideIn('github', '')).toBeNull();
    expect(methodOverrideIn('slack', '_method=DELETE')).toBeNull();
  });
});
