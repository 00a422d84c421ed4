/**
 * How many connections an application (by its `application_name`) still holds, once PostgreSQL has
 * let go of the ones it closed. A backend leaves pg_stat_activity when its process exits, a moment
 * after the client's Terminate, and nothing on the client's side says when: on a loaded machine
 * the count read at once after a close() still showed one. A connection still open after
 * `settleMs` is a leak, and the count returned says so.
 */
import { eventually } from './eventually.ts';

interface RawQuery {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): Promise<T>;
}

export async function openConnections(db: RawQuery, applicationName: string): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE application_name = ${applicationName} AND pid <> pg_backend_pid()`;
  return row?.n ?? 0;
}

export async function openConnectionsOnceClosed(
  db: RawQuery,
  applicationName: string,
  settleMs = 5_000,
): Promise<number> {
  let count: number | undefined;
  try {
    await eventually(
      async () => {
        count = undefined;
        count = await openConnections(db, applicationName);
        return count === 0;
      },
      { what: `${applicationName} holds no connection`, timeoutMs: settleMs, intervalMs: 50 },
    );
  } catch (error) {
    // Still open at the end is an answer (the caller's assertion names the leak); a failed query is not.
    if (count === undefined) throw error;
  }
  return count ?? 0;
}
