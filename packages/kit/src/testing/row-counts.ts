/**
 * How many rows each table of some schemas holds, for tests that must show a request wrote
 * nothing: compare two snapshots taken before and after.
 */
import pg from 'pg';

/** `schema.table` → row count, for every table of `schemas`. */
export async function rowCounts(
  databaseUrl: string,
  schemas: readonly string[],
): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema = ANY($1::text[])
        ORDER BY 1, 2`,
      [schemas],
    );
    const counts = new Map<string, number>();
    for (const { schema, name } of tables.rows) {
      const quoted = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      const result = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${quoted}`);
      counts.set(`${schema}.${name}`, Number(result.rows[0]?.count ?? 0));
    }
    return counts;
  } finally {
    await client.end();
  }
}
