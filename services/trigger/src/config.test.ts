import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadTriggerConfig } from './config.ts';

const DATABASE_URL = 'postgres://trigger@db.internal/pag';

describe('trigger configuration', () => {
  test('defaults: ops port 9094, the scheduler settings of the design', () => {
    expect(loadTriggerConfig({ DATABASE_URL })).toEqual({
      opsPort: 9094,
      host: '0.0.0.0',
      databaseUrl: DATABASE_URL,
      natsUrl: undefined,
      shutdownDrainMs: 0,
      logLevel: 'info',
      scheduler: {
        tickMs: 1_000,
        lateGraceMs: 60_000,
        runLeaseMs: 60_000,
        runTimeoutMs: 150_000,
        concurrency: 4,
        planBatch: 100,
      },
      grantTimeoutMs: 2_000,
    });
  });

  test('a lease shorter than three ticks and a grace shorter than a tick are refused, each named', () => {
    let error: unknown;
    try {
      loadTriggerConfig({
        DATABASE_URL,
        TRIGGER_TICK_MS: '30000',
        TRIGGER_RUN_LEASE_MS: '60000',
        TRIGGER_LATE_GRACE_MS: '1000',
        TRIGGER_CONCURRENCY: '0',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.join('\n');
    expect(issues).toContain('TRIGGER_CONCURRENCY');
    expect(issues).toContain('TRIGGER_RUN_LEASE_MS: must be at least three times TRIGGER_TICK_MS');
    expect(issues).toContain('TRIGGER_LATE_GRACE_MS: must be at least TRIGGER_TICK_MS');
  });
});
