/**
 * Service schema names go into SQL text (CREATE SCHEMA, search_path), where parameters cannot be
 * used. Only plain lowercase identifiers are accepted, so quoting can never be got wrong.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `Invalid Postgres schema name ${JSON.stringify(schema)}: use lowercase letters, digits and _`,
    );
  }
}

/** The schema as a quoted identifier, after checking it. */
export function quoteSchema(schema: string): string {
  assertSchemaName(schema);
  return `"${schema}"`;
}
