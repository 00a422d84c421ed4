/**
 * Schema drift: the differences between a service's Prisma schema and the tables its SQL
 * migrations really created, so neither can change without the other. Every service's test calls
 *
 *   expect(await findSchemaDrift({ databaseUrl, schemaText })).toEqual([]);
 *
 * after applying its migrations; a failure lists each difference in words.
 *
 * Compared, per model: the table exists; its columns (name, type as PostgreSQL prints it,
 * nullability except of lists, whether the database has a default where Prisma expects one); its primary key;
 * its unique and plain indexes (by columns); its foreign keys; and the values of every enum. Tables
 * in the model's schemas without a model are reported too (`_prisma_migrations` excepted).
 * Not compared: default values themselves, index names and methods, referential actions.
 */
import pg from 'pg';
import { readDatabaseShape } from './database-shape.ts';
import { readPrismaSchemaShape } from './prisma-datamodel.ts';
import type { ForeignKeyShape, SchemaShape, TableShape } from './table-shape.ts';

export interface SchemaDriftOptions {
  /** A database where the migrations have been applied. */
  databaseUrl: string;
  /** The text of schema.prisma. */
  schemaText: string;
}

const HISTORY_TABLE = '_prisma_migrations';

export async function findSchemaDrift(options: SchemaDriftOptions): Promise<string[]> {
  const expected = await readPrismaSchemaShape(options.schemaText);
  const schemas = [...new Set(expected.tables.map((table) => table.schema))];
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    return compareShapes(expected, await readDatabaseShape(client, schemas));
  } finally {
    await client.end();
  }
}

/** Pure comparison, one sentence per difference. */
export function compareShapes(expected: SchemaShape, actual: SchemaShape): string[] {
  const problems: string[] = [];
  const actualTables = new Map(actual.tables.map((table) => [`${table.schema}.${table.name}`, table]));
  for (const table of expected.tables) {
    const key = `${table.schema}.${table.name}`;
    const found = actualTables.get(key);
    actualTables.delete(key);
    if (found === undefined) problems.push(`${key}: table missing (${table.source})`);
    else problems.push(...compareTables(table, found));
  }
  for (const [key, table] of actualTables) {
    if (table.name !== HISTORY_TABLE) problems.push(`${key}: table in the database has no model`);
  }
  const actualEnums = new Map(actual.enums.map((item) => [item.name, item.values]));
  for (const item of expected.enums) {
    const values = actualEnums.get(item.name);
    if (values === undefined) problems.push(`enum ${item.name}: type missing`);
    else if (list(values) !== list(item.values)) {
      problems.push(
        `enum ${item.name}: values ${list(values)} in the database, ${list(item.values)} in the model`,
      );
    }
  }
  return problems;
}

function compareTables(expected: TableShape, actual: TableShape): string[] {
  const name = `${expected.schema}.${expected.name}`;
  const problems: string[] = [];
  for (const [column, shape] of expected.columns) {
    const found = actual.columns.get(column);
    const where = `${name}.${column}`;
    if (found === undefined) {
      problems.push(`${where}: column missing (${expected.source})`);
      continue;
    }
    if (found.type !== shape.type)
      problems.push(`${where}: type ${found.type} in the database, ${shape.type} in the model`);
    // A Prisma list (String[]) says nothing of NULL: its column may be NOT NULL or not.
    if (found.notNull !== shape.notNull && !shape.type.endsWith('[]')) {
      problems.push(
        `${where}: ${nullability(found.notNull)} in the database, ${nullability(shape.notNull)} in the model`,
      );
    }
    if (found.hasDefault !== shape.hasDefault) {
      problems.push(
        `${where}: ${defaults(found.hasDefault)} in the database, ${defaults(shape.hasDefault)} in the model`,
      );
    }
  }
  for (const column of actual.columns.keys()) {
    if (!expected.columns.has(column))
      problems.push(`${name}.${column}: column in the database is not in the model`);
  }
  if (list(actual.primaryKey) !== list(expected.primaryKey)) {
    problems.push(
      `${name}: primary key ${list(actual.primaryKey)} in the database, ${list(expected.primaryKey)} in the model`,
    );
  }
  problems.push(
    ...compareSets(name, 'unique index', expected.uniqueIndexes.map(list), actual.uniqueIndexes.map(list)),
  );
  problems.push(...compareSets(name, 'index', expected.indexes.map(list), actual.indexes.map(list)));
  problems.push(
    ...compareSets(name, 'foreign key', expected.foreignKeys.map(fk), actual.foreignKeys.map(fk)),
  );
  return problems;
}

function compareSets(table: string, what: string, expected: string[], actual: string[]): string[] {
  const missing = expected
    .filter((item) => !actual.includes(item))
    .map((item) => `${table}: ${what} ${item} missing`);
  const extra = actual
    .filter((item) => !expected.includes(item))
    .map((item) => `${table}: ${what} ${item} in the database is not in the model`);
  return [...missing, ...extra];
}

function list(items: string[]): string {
  return `(${items.join(', ')})`;
}

function fk(key: ForeignKeyShape): string {
  return `${list(key.columns)} → ${key.references}${list(key.referencedColumns)}`;
}

function nullability(notNull: boolean): string {
  return notNull ? 'NOT NULL' : 'nullable';
}

function defaults(hasDefault: boolean): string {
  return hasDefault ? 'has a default' : 'no default';
}
