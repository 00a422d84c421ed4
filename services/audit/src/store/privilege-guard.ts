/**
 * The start-up check that the log is append-only for the service itself: the role it connects as
 * must not own the audit tables nor be a member of their owner, even one that inherits nothing
 * (an owner can drop the triggers; a member can SET ROLE to it), and must not hold UPDATE, DELETE
 * or TRUNCATE on them (a superuser holds every privilege, so it is refused too). It must be able
 * to read and append (the grants of pag_audit_writer). Anything else stops the start with a
 * message that says what to change.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export const AUDIT_TABLES = ['records', 'checkpoints'] as const;

interface TableRights {
  table: string;
  owns: boolean;
  can_select: boolean;
  can_insert: boolean;
  can_update: boolean;
  can_delete: boolean;
  can_truncate: boolean;
}

/** The service's role may change or remove rows, or cannot append: it must not run. */
export class AuditRoleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditRoleError';
  }
}

const HINT =
  'connect the audit service as a LOGIN role that is a member of pag_audit_writer and neither owns ' +
  'the audit tables nor is a superuser (see services/audit/README.md, "Roles")';

export async function assertAppendOnlyRole(prisma: PrismaClient): Promise<void> {
  const [who] = await prisma.$queryRaw<{ role: string; superuser: boolean }[]>`
    SELECT current_user::text AS role, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`;
  const rights = await prisma.$queryRaw<TableRights[]>`
    SELECT c.relname::text AS table,
           pg_has_role(current_user, c.relowner, 'MEMBER') AS owns,
           has_table_privilege(c.oid, 'SELECT') AS can_select,
           has_table_privilege(c.oid, 'INSERT') AS can_insert,
           has_table_privilege(c.oid, 'UPDATE') AS can_update,
           has_table_privilege(c.oid, 'DELETE') AS can_delete,
           has_table_privilege(c.oid, 'TRUNCATE') AS can_truncate
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'audit' AND c.relname = ANY(${[...AUDIT_TABLES]}::text[])
    ORDER BY c.relname`;
  const role = who?.role ?? 'the current role';
  if (who?.superuser === true)
    throw new AuditRoleError(
      `the audit service refuses to run as ${role}: a superuser can rewrite the log; ${HINT}`,
    );
  if (rights.length < AUDIT_TABLES.length)
    throw new AuditRoleError(
      `the audit tables are missing or not visible to ${role}: run the audit migrations (pnpm --filter @pag/audit migrate) as the tables' owner`,
    );
  const problems: string[] = [];
  for (const table of rights) {
    const name = `audit.${table.table}`;
    if (table.owns) problems.push(`${role} owns ${name}`);
    const held = (['update', 'delete', 'truncate'] as const).filter((right) => table[`can_${right}`]);
    if (held.length > 0) problems.push(`${role} may ${held.join(', ').toUpperCase()} ${name}`);
    if (!table.can_select || !table.can_insert) problems.push(`${role} may not SELECT and INSERT ${name}`);
  }
  if (problems.length > 0)
    throw new AuditRoleError(`the audit service refuses to start: ${problems.join('; ')}; ${HINT}`);
}
