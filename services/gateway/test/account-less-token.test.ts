/**
 * A token that acts for no owner account (a client-credentials token, say) is refused with the
 * same 401 as at the proxy: every request under /api/v1 belongs to a tenant (docs/adr/0032).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import type { TokenGateway } from './start-token-gateway.ts';
import { PUBLIC_URL, startTokenGateway } from './start-token-gateway.ts';

let stack: TokenGateway;
beforeAll(async () => {
  stack = await startTokenGateway();
});
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

test('a token acting for no account: 401 INVALID_TOKEN saying so, with the invalid_token challenge', async () => {
  stack.issue('client-only', 'knowledge', { account_id: undefined, sub: undefined });
  const answer = await fetch(`${stack.gateway.url}/api/v1/tokens/me/capabilities`, {
    headers: { authorization: 'Bearer client-only' },
  });
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe(
    `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/api/v1", error="invalid_token", error_description="The token acts for no owner account."`,
  );
  expect(ErrorBody.parse(await answer.json()).error).toMatchObject({
    code: 'INVALID_TOKEN',
    message: 'The token acts for no owner account.',
  });
});
