/**
 * A digest of every row of every table of some schemas, for tests that must show a request wrote
 * nothing (no row added, changed or removed): compare two snapshots taken before and after.
 */
import pg from 'pg';

/** `schema.table` → MD5 of its rows (as text, in a fixed order), for every table of `schemas`. */
export async function tableDigests(
  databaseUrl: string,
  schemas: readonly string[],
): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema = ANY($1::text[])
        ORDER BY 1, 2`,
      [schemas],
    );
    const digests = new Map<string, string>();
    for (const { schema, name } of tables.rows) {
      const quoted = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      const result = await client.query<{ digest: string | null }>(
        `SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) AS digest FROM ${quoted} t`,
      );
      digests.set(`${schema}.${name}`, result.rows[0]?.digest ?? 'empty');
    }
    return digests;
  } finally {
    await client.end();
  }
}
