/**
 * What a Prisma schema says its tables should look like, read through Prisma's own schema parser
 * (the prisma-schema-wasm DMMF, the same data model the client is generated from) rather than a
 * parser of ours, and translated to PostgreSQL types as Prisma Migrate would create them.
 */
import type { ColumnShape, EnumShape, ForeignKeyShape, SchemaShape, TableShape } from './table-shape.ts';

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  default?: unknown;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  fields: { name: string }[];
}

interface Datamodel {
  models: DmmfModel[];
  enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[];
  indexes?: DmmfIndex[];
}

/** Prisma's column type for each scalar without a native type attribute. */
const DEFAULT_TYPES: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** `@db.X(args)` → format_type() spelling; `%` stands for the arguments, `?` for optional ones. */
const NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Char: 'character%',
  VarChar: 'character varying%',
  Bit: 'bit%',
  VarBit: 'bit varying%',
  Uuid: 'uuid',
  Xml: 'xml',
  Inet: 'inet',
  Citext: 'citext',
  Boolean: 'boolean',
  Integer: 'integer',
  SmallInt: 'smallint',
  Oid: 'oid',
  BigInt: 'bigint',
  DoublePrecision: 'double precision',
  Real: 'real',
  Decimal: 'numeric%',
  Money: 'money',
  Timestamp: 'timestamp% without time zone',
  Timestamptz: 'timestamp% with time zone',
  Date: 'date',
  Time: 'time% without time zone',
  Timetz: 'time% with time zone',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
};

/** Defaults Prisma's client computes itself: the column has no database default. */
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

export async function readPrismaSchemaShape(schemaText: string): Promise<SchemaShape> {
  const { get_dmmf } = await import('@prisma/prisma-schema-wasm');
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schemaText]] }))) as {
    datamodel: Datamodel;
  };
  return toSchemaShape(dmmf.datamodel);
}

function toSchemaShape(datamodel: Datamodel): SchemaShape {
  if (datamodel.indexes === undefined)
    throw new Error('This DMMF has no `indexes`: prisma-schema-wasm is too old');
  const enumNames = new Map(datamodel.enums.map((item) => [item.name, item.dbName ?? item.name]));
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const tables = datamodel.models.map((model): TableShape => {
    const column = (fieldName: string) => columnName(model, fieldName);
    const indexes = (type: DmmfIndex['type']) =>
      datamodel
        .indexes!.filter((index) => index.model === model.name && index.type === type)
        .map((index) => index.fields.map((field) => column(field.name)));
    return {
      schema: model.schema ?? 'public',
      name: model.dbName ?? model.name,
      source: `model ${model.name}`,
      columns: new Map(
        model.fields
          .filter((field) => field.kind === 'scalar' || field.kind === 'enum')
          .map((field) => [field.dbName ?? field.name, columnShape(field, enumNames)]),
      ),
      primaryKey: indexes('id')[0] ?? [],
      uniqueIndexes: indexes('unique'),
      indexes: indexes('normal'),
      foreignKeys: model.fields.flatMap((field) => foreignKey(model, field, models)),
    };
  });
  const enums = datamodel.enums.map(
    (item): EnumShape => ({
      name: item.dbName ?? item.name,
      values: item.values.map((v) => v.dbName ?? v.name),
    }),
  );
  return { tables, enums };
}

function columnShape(field: DmmfField, enumNames: Map<string, string>): ColumnShape {
  const base = field.kind === 'enum' ? `enum ${enumNames.get(field.type) ?? field.type}` : scalarType(field);
  const clientSide =
    typeof field.default === 'object' &&
    field.default !== null &&
    CLIENT_SIDE_DEFAULTS.has((field.default as { name?: string }).name ?? '');
  return {
    type: field.isList ? `${base}[]` : base,
    // Prisma Migrate creates scalar-list columns without NOT NULL (`"tags" TEXT[],`), though the
    // DMMF calls every list required.
    notNull: field.isRequired && !field.isList,
    hasDefault: field.hasDefaultValue && !clientSide,
  };
}

function scalarType(field: DmmfField): string {
  if (field.nativeType == null) return DEFAULT_TYPES[field.type] ?? `unsupported Prisma type ${field.type}`;
  const [name, args] = field.nativeType;
  const pattern = NATIVE_TYPES[name];
  if (pattern === undefined) return `unsupported native type @db.${name}`;
  return pattern.replace('%', args.length > 0 ? `(${args.join(',')})` : '');
}

function foreignKey(model: DmmfModel, field: DmmfField, models: Map<string, DmmfModel>): ForeignKeyShape[] {
  const target = models.get(field.type);
  if (field.kind !== 'object' || !field.relationFromFields?.length || target === undefined) return [];
  return [
    {
      columns: field.relationFromFields.map((name) => columnName(model, name)),
      references: `${target.schema ?? 'public'}.${target.dbName ?? target.name}`,
      referencedColumns: (field.relationToFields ?? []).map((name) => columnName(target, name)),
    },
  ];
}

function columnName(model: DmmfModel, fieldName: string): string {
  const field = model.fields.find((candidate) => candidate.name === fieldName);
  return field?.dbName ?? fieldName;
}
