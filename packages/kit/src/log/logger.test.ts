import { Writable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { createLogger, requestLogger } from './logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  test('JSON lines with the service, the request id, and secrets redacted', () => {
    const { lines, destination } = capture();
    const logger = requestLogger(createLogger({ service: 'gateway', destination }), 'req-1');
    logger.info(
      { headers: { authorization: 'Bearer secret-token', accept: 'application/json' }, password: 'hunter2' },
      'hello',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      service: 'gateway',
      requestId: 'req-1',
      msg: 'hello',
      headers: { authorization: '[redacted]', accept: 'application/json' },
      password: '[redacted]',
    });
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });
});
