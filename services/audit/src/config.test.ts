import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadAuditConfig } from './config.ts';

const KEY = Buffer.alloc(32, 7).toString('base64url');
const RETIRED = Buffer.alloc(32, 9).toString('base64url');

describe('audit configuration', () => {
  test('defaults: ops port 9095, checkpoints every 10 s, kept forever, segments of 100,000 rows', () => {
    const config = loadAuditConfig({
      DATABASE_URL: 'postgres://pag_audit@db.internal/pag',
      AUDIT_SIGNING_KEY: KEY,
    });
    expect(config).toEqual({
      opsPort: 9095,
      host: '0.0.0.0',
      databaseUrl: 'postgres://pag_audit@db.internal/pag',
      natsUrl: undefined,
      shutdownDrainMs: 0,
      logLevel: 'info',
      signingKey: KEY,
      retiredVerifyKeys: [],
      checkpointIntervalMs: 10_000,
      retentionDays: 0,
      segmentRows: 100_000,
      batchMax: 500,
    });
  });

  test('retired verify keys: comma-separated, blanks ignored', () => {
    const config = loadAuditConfig({
      DATABASE_URL: 'postgres://pag_audit@db.internal/pag',
      AUDIT_SIGNING_KEY: KEY,
      AUDIT_VERIFY_KEYS: ` ${RETIRED}, ,${KEY}`,
    });
    expect(config.retiredVerifyKeys).toEqual([RETIRED, KEY]);
  });

  test('every bad key is named at once', () => {
    const load = () =>
      loadAuditConfig({
        AUDIT_SIGNING_KEY: `${KEY}=`,
        AUDIT_VERIFY_KEYS: 'short',
        AUDIT_RETENTION_DAYS: '-1',
        AUDIT_SEGMENT_ROWS: '0',
      });
    expect(load).toThrow(ConfigError);
    for (const key of [
      'DATABASE_URL',
      'AUDIT_SIGNING_KEY',
      'AUDIT_VERIFY_KEYS',
      'AUDIT_RETENTION_DAYS',
      'AUDIT_SEGMENT_ROWS',
    ])
      expect(load).toThrow(new RegExp(key));
  });
});
