import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, envBoolean, envLogLevel, envPort, envUrl, parseConfig } from './parse-config.ts';

const Schema = z.object({
  PORT: envPort(8080),
  PUBLIC_URL: envUrl.optional(),
  LOG_LEVEL: envLogLevel,
  STRICT: envBoolean(false),
});

describe('parseConfig', () => {
  test('applies defaults, and an empty value counts as unset', () => {
    expect(parseConfig(Schema, { PORT: '', UNRELATED: 'x' })).toEqual({
      PORT: 8080,
      LOG_LEVEL: 'info',
      STRICT: false,
    });
  });

  test('coerces and validates values', () => {
    expect(parseConfig(Schema, { PORT: '0', PUBLIC_URL: 'https://a.example', STRICT: 'true' })).toMatchObject(
      {
        PORT: 0,
        PUBLIC_URL: 'https://a.example',
        STRICT: true,
      },
    );
  });

  test('fails listing every bad key, not only the first', () => {
    const parse = () => parseConfig(Schema, { PORT: '70000', PUBLIC_URL: 'not a url', LOG_LEVEL: 'loud' });
    expect(parse).toThrow(ConfigError);
    try {
      parse();
    } catch (error) {
      const keys = (error as ConfigError).issues.map((issue) => issue.split(':', 1)[0]);
      expect(keys.sort()).toEqual(['LOG_LEVEL', 'PORT', 'PUBLIC_URL']);
    }
  });
});
