import { describe, expect, test } from '@jest/globals';
import { createLogger } from '../log/logger.ts';
import { Shutdown } from './shutdown.ts';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('Shutdown', () => {
  test('runs closers once, last registered first, and goes on past a failing one', async () => {
    const order: string[] = [];
    const shutdown = new Shutdown(logger);
    shutdown.add('database', () => {
      order.push('database');
    });
    shutdown.add('bus', () => {
      order.push('bus');
      throw new Error('drain failed');
    });
    shutdown.add('http', async () => {
      order.push('http');
    });
    await Promise.all([shutdown.run('SIGTERM'), shutdown.run('SIGINT')]);
    expect(order).toEqual(['http', 'bus', 'database']);
  });

  test('abandons a closer past the deadline and still runs the rest', async () => {
    const order: string[] = [];
    const shutdown = new Shutdown(logger, 100);
    shutdown.add('database', () => {
      order.push('database');
    });
    shutdown.add('stuck', () => new Promise<void>(() => {}));
    const started = Date.now();
    await shutdown.run('SIGTERM');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(order).toEqual(['database']);
  });
});
