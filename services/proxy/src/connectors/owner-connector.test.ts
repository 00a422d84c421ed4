import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { checkOwnerUrls, ownerDefinition } from './owner-connector.ts';

const fields = {
  name: 'acme',
  displayName: 'Acme',
  authorizationUrl: 'https://127.0.0.1/auth',
  tokenUrl: 'https://127.0.0.1/token',
  revocationUrl: null,
  apiBaseUrl: 'https://127.0.0.1/api',
  scopes: [],
  clientAuth: 'client_secret_post' as const,
  pkce: true,
  clientId: 'id',
};

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe("an owner's connector definition", () => {
  test('is the catalogue schema: GET and HEAD read, everything else writes', () => {
    const definition = ownerDefinition({ ...fields, authorizationUrl: 'https://example.com/auth' }, false);
    expect(definition.access).toMatchObject({ style: 'rest', operations: [] });
    expect(definition.api.allowedHosts).toEqual(['127.0.0.1']);
  });

  test('http is refused without the loopback flag, naming the field', () => {
    expect(() => ownerDefinition({ ...fields, tokenUrl: 'http://127.0.0.1/token' }, false)).toThrow(
      /^tokenUrl:/,
    );
  });

  test('URLs resolving to loopback, private or link-local addresses are refused without the flag', async () => {
    for (const [field, url] of [
      ['tokenUrl', 'https://localhost/token'],
      ['apiBaseUrl', 'https://10.1.2.3/api'],
      ['authorizationUrl', 'https://169.254.169.254/auth'],
    ] as const) {
      const definition = ownerDefinition(
        {
          ...fields,
          authorizationUrl: 'https://8.8.8.8/a',
          tokenUrl: 'https://8.8.8.8/t',
          apiBaseUrl: 'https://8.8.8.8/api',
          [field]: url,
        },
        false,
      );
      const error = await refusal(checkOwnerUrls(definition, false));
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message.startsWith(`${field}:`)).toBe(true);
    }
    await expect(checkOwnerUrls(ownerDefinition(fields, true), true)).resolves.toBeUndefined();
  });
});
