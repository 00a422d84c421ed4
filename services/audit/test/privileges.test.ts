/**
 * The log is append-only for the service itself: it refuses to start as a role that could change
 * or remove rows (a superuser, the tables' owner, a role holding UPDATE, DELETE or TRUNCATE), and
 * as its own role UPDATE, DELETE and TRUNCATE fail. Even the tables' owner cannot change a row:
 * the triggers refuse.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { startService } from '@pag/testkit';
import { auditService } from '../src/definition.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { AuditRoleError } from '../src/store/privilege-guard.ts';
import { createAuditLogin, newSigningKey } from './support/audit-login.ts';
import type { TestAudit } from './support/start-test-audit.ts';
import { startTestAudit } from './support/start-test-audit.ts';

const EVENT_ID = '6f1c1d7e-8a51-4c0e-9b0e-2b7f1a0c9d11';

let t: TestAudit;
let asService: PrismaClient;
beforeAll(async () => {
  t = await startTestAudit();
  asService = createPrismaClient(PrismaClient, { databaseUrl: t.config.databaseUrl, schema: 'audit' });
  await t.db.$executeRawUnsafe(`INSERT INTO audit.records (seq, event_id, kind, source, request_id, time,
      recorded_at, action, decision, prev_hash, hash)
    VALUES (1, '${EVENT_ID}', 'request', 'gateway', 'r', now(), now(), 'http.request', 'allowed', '', '')`);
}, 60_000);
afterAll(async () => {
  await asService?.$disconnect();
  await t?.close();
});

/** Why the service refused to start as the role `login` makes; a service that did start is stopped. */
async function refusalAs(login: (superuserUrl: string) => Promise<string>): Promise<string> {
  try {
    const started = await startService(auditService, {
      env: { AUDIT_SIGNING_KEY: newSigningKey() },
      serviceDatabaseUrl: (postgres) => login(postgres.url),
    });
    await started.close();
  } catch (error) {
    expect(error).toBeInstanceOf(AuditRoleError);
    return (error as AuditRoleError).message;
  }
  throw new Error('the audit service started');
}

describe('the role the service runs as', () => {
  test('a superuser is refused, saying why and what to do', async () => {
    expect(await refusalAs(async (url) => url)).toMatch(
      /superuser can rewrite the log.*member of pag_audit_writer/,
    );
  }, 60_000);

  test("a member of the tables' owner is refused, even one that inherits nothing (it can SET ROLE)", async () => {
    const refusal = await refusalAs(async (url) => {
      const login = await createAuditLogin(url, 'owner_member');
      const db = createPrismaClient(PrismaClient, { databaseUrl: url, schema: 'audit' });
      await db.$executeRawUnsafe('GRANT postgres TO owner_member WITH INHERIT FALSE');
      await db.$disconnect();
      return login;
    });
    expect(refusal).toMatch(/owner_member owns audit\.checkpoints; owner_member owns audit\.records;/);
  }, 60_000);

  test('a role that may UPDATE or DELETE rows is refused, naming the rights', async () => {
    const refusal = await refusalAs(async (url) => {
      const login = await createAuditLogin(url, 'too_strong');
      const db = createPrismaClient(PrismaClient, { databaseUrl: url, schema: 'audit' });
      await db.$executeRawUnsafe('GRANT UPDATE, DELETE ON audit.records TO too_strong');
      await db.$disconnect();
      return login;
    });
    expect(refusal).toMatch(/too_strong may UPDATE, DELETE audit\.records/);
  }, 60_000);
});

describe('as the service role', () => {
  test.each([
    ['UPDATE', "UPDATE audit.records SET decision = 'denied'"],
    ['DELETE', 'DELETE FROM audit.records'],
    ['TRUNCATE', 'TRUNCATE audit.records'],
    ['UPDATE a checkpoint', "UPDATE audit.checkpoints SET hash = ''"],
    ['DELETE a checkpoint', 'DELETE FROM audit.checkpoints'],
  ])('%s fails: permission denied', async (_, sql) => {
    await expect(asService.$executeRawUnsafe(sql)).rejects.toThrow(/permission denied/);
  });

  test('it can read and append', async () => {
    const rows = await asService.$queryRawUnsafe<{ n: bigint }[]>('SELECT count(*) AS n FROM audit.records');
    expect(rows[0]?.n).toBe(1n);
  });
});

describe("as the tables' owner (a superuser)", () => {
  test.each([
    ['UPDATE', "UPDATE audit.records SET decision = 'denied'"],
    ['DELETE', 'DELETE FROM audit.records'],
    ['TRUNCATE', 'TRUNCATE audit.records'],
    ['TRUNCATE the checkpoints', 'TRUNCATE audit.checkpoints'],
  ])('%s fails: the triggers refuse', async (_, sql) => {
    await expect(t.db.$executeRawUnsafe(sql)).rejects.toThrow(/audit records are append-only/);
  });

  test('the retention flag alone does not let a DELETE through outside prune_through', async () => {
    // The owner could drop the triggers; that is what the chain detects. The flag without a
    // transaction of prune_through's own still needs the owner, and the service role is not one.
    await expect(
      asService.$transaction([
        asService.$executeRawUnsafe("SELECT set_config('audit.pruning', 'on', true)"),
        asService.$executeRawUnsafe('DELETE FROM audit.records'),
      ]),
    ).rejects.toThrow(/permission denied/);
  });
});
