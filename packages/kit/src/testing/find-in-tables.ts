/**
 * Where secrets appear in a database: every column of every row of every table of every schema
 * but PostgreSQL's own, each row as text (`t::text`, so arrays, JSON and bytea in hex are looked
 * into too), for tests that show a value is never stored in the clear. A needle is looked for as
 * it is and in the encodings a careless write would leave it in: hex, base64 and base64url.
 */
import pg from 'pg';

export interface TableFinding {
  table: string;
  /** The needle found (as given, not its encoding). */
  needle: string;
  encoding: 'text' | 'hex' | 'base64' | 'base64url';
  rows: number;
}

function encodings(needle: string): [TableFinding['encoding'], string][] {
  const bytes = Buffer.from(needle, 'utf8');
  return [
    ['text', needle],
    ['hex', bytes.toString('hex')],
    ['base64', bytes.toString('base64').replace(/=+$/, '')],
    ['base64url', bytes.toString('base64url')],
  ];
}

export async function findInTables(databaseUrl: string, needles: readonly string[]): Promise<TableFinding[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE'
          AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg_toast%'
        ORDER BY 1, 2`,
    );
    const findings: TableFinding[] = [];
    for (const { schema, name } of tables.rows) {
      const quoted = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      for (const needle of needles) {
        for (const [encoding, form] of encodings(needle)) {
          const result = await client.query<{ rows: string }>(
            `SELECT count(*) AS rows FROM ${quoted} t WHERE strpos(t::text, $1) > 0`,
            [form],
          );
          const rows = Number(result.rows[0]?.rows ?? 0);
          if (rows > 0) findings.push({ table: `${schema}.${name}`, needle, encoding, rows });
        }
      }
    }
    return findings;
  } finally {
    await client.end();
  }
}

/** How many tables findInTables looks into (a scan of nothing proves nothing). */
export async function countTables(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ tables: string }>(
      `SELECT count(*) AS tables FROM information_schema.tables
        WHERE table_type = 'BASE TABLE'
          AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg_toast%'`,
    );
    return Number(result.rows[0]?.tables ?? 0);
  } finally {
    await client.end();
  }
}
