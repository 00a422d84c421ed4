import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { pino } from 'pino';
import { ERROR_HEADERS, errorFromHeaders, errorToHeaders } from './error-headers.ts';

const silent = pino({ level: 'silent' });

describe('errors carried in reply headers', () => {
  test('every header value is one line, whatever the message holds', () => {
    const headers = errorToHeaders(new AppError('CONFLICT', 'two\r\nlines ünïcode  '), 'x', silent);
    for (const value of Object.values(headers)) expect(value).toMatch(/^[\x21-\x7e]+$/);
    expect(errorFromHeaders(headers)?.message).toBe('two\r\nlines ünïcode  ');
  });

  test('a 5xx AppError a handler chose to expose stays exposed', () => {
    const rebuilt = errorFromHeaders(
      errorToHeaders(new AppError('UPSTREAM_TIMEOUT', 'No reply.', { expose: true }), 'x', silent),
    );
    expect([rebuilt?.code, rebuilt?.status, rebuilt?.expose]).toEqual(['UPSTREAM_TIMEOUT', 504, true]);
  });

  test('a code this build does not know becomes INTERNAL_ERROR with the status it came with', () => {
    const rebuilt = errorFromHeaders({
      [ERROR_HEADERS.code]: 'SOME_FUTURE_CODE',
      [ERROR_HEADERS.status]: '503',
      [ERROR_HEADERS.message]: 'later',
    });
    expect([rebuilt?.code, rebuilt?.status, rebuilt?.message]).toEqual(['INTERNAL_ERROR', 503, 'later']);
  });

  test('a reply without error headers is a success', () => {
    expect(errorFromHeaders({ 'X-Request-Id': 'r' })).toBeUndefined();
  });
});
