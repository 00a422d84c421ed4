/**
 * What the tables of some Postgres schemas really look like, read from the system catalogue
 * (pg_attribute, pg_index, pg_constraint, pg_enum), in the spelling of table-shape.ts.
 */
import type { ClientBase } from 'pg';
import type { ColumnShape, SchemaShape, TableShape } from './table-shape.ts';

export async function readDatabaseShape(client: ClientBase, schemas: string[]): Promise<SchemaShape> {
  const tables = new Map<string, TableShape>();
  const tableOf = (schema: string, name: string): TableShape => {
    const key = `${schema}.${name}`;
    let table = tables.get(key);
    if (table === undefined) {
      table = {
        schema,
        name,
        source: '',
        columns: new Map(),
        primaryKey: [],
        uniqueIndexes: [],
        indexes: [],
        foreignKeys: [],
      };
      tables.set(key, table);
    }
    return table;
  };

  const columns = await client.query<{ schema: string; table: string; column: string } & ColumnShape>(
    `SELECT n.nspname AS schema, c.relname AS table, a.attname AS column,
            CASE WHEN t.typtype = 'e' THEN 'enum ' || t.typname
                 WHEN et.typtype = 'e' THEN 'enum ' || et.typname || '[]'
                 ELSE format_type(a.atttypid, a.atttypmod) END AS type,
            a.attnotnull AS "notNull", (a.atthasdef OR a.attidentity <> '') AS "hasDefault"
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
      WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY n.nspname, c.relname, a.attnum`,
    [schemas],
  );
  for (const row of columns.rows) {
    tableOf(row.schema, row.table).columns.set(row.column, {
      type: row.type,
      notNull: row.notNull,
      hasDefault: row.hasDefault,
    });
  }

  const indexes = await client.query<{
    schema: string;
    table: string;
    primary: boolean;
    unique: boolean;
    columns: string[];
  }>(
    `SELECT n.nspname AS schema, c.relname AS table, i.indisprimary AS primary, i.indisunique AS unique,
            array_agg(a.attname::text ORDER BY k.ord) AS columns
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p')
      GROUP BY n.nspname, c.relname, i.indexrelid, i.indisprimary, i.indisunique`,
    [schemas],
  );
  for (const row of indexes.rows) {
    const table = tableOf(row.schema, row.table);
    if (row.primary) table.primaryKey = row.columns;
    else if (row.unique) table.uniqueIndexes.push(row.columns);
    else table.indexes.push(row.columns);
  }

  const foreignKeys = await client.query<{
    schema: string;
    table: string;
    columns: string[];
    references: string;
    referencedColumns: string[];
  }>(
    `SELECT n.nspname AS schema, c.relname AS table,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS columns,
            rn.nspname || '.' || rc.relname AS references,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum) AS "referencedColumns"
       FROM pg_constraint con
       JOIN pg_class c ON c.oid = con.conrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_class rc ON rc.oid = con.confrelid
       JOIN pg_namespace rn ON rn.oid = rc.relnamespace
      WHERE con.contype = 'f' AND n.nspname = ANY($1)`,
    [schemas],
  );
  for (const row of foreignKeys.rows) {
    tableOf(row.schema, row.table).foreignKeys.push({
      columns: row.columns,
      references: row.references,
      referencedColumns: row.referencedColumns,
    });
  }

  const enums = await client.query<{ name: string; values: string[] }>(
    `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
       FROM pg_type t
       JOIN pg_namespace n ON n.oid = t.typnamespace
       JOIN pg_enum e ON e.enumtypid = t.oid
      WHERE n.nspname = ANY($1)
      GROUP BY t.typname`,
    [schemas],
  );
  return { tables: [...tables.values()], enums: enums.rows };
}
