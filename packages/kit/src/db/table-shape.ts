/**
 * The shape of a table as both sides of the drift check describe it: what a Prisma schema says
 * the table should be, and what PostgreSQL's catalogue says it is. Types are written the way
 * PostgreSQL's format_type() prints them (`text`, `timestamp(3) with time zone`, `integer[]`),
 * enums as `enum <type name>`.
 */
export interface ColumnShape {
  type: string;
  notNull: boolean;
  /** Whether the database fills the column when an INSERT leaves it out. */
  hasDefault: boolean;
}

export interface ForeignKeyShape {
  columns: string[];
  /** `schema.table` */
  references: string;
  referencedColumns: string[];
}

export interface TableShape {
  schema: string;
  name: string;
  /** Where the expectation comes from, e.g. `model UsageCounter`; empty for the database side. */
  source: string;
  /** Column name → shape, in table order. */
  columns: Map<string, ColumnShape>;
  primaryKey: string[];
  uniqueIndexes: string[][];
  indexes: string[][];
  foreignKeys: ForeignKeyShape[];
}

export interface EnumShape {
  name: string;
  values: string[];
}

export interface SchemaShape {
  tables: TableShape[];
  enums: EnumShape[];
}
