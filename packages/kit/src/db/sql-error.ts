/**
 * Turns a PostgreSQL error into one line an operator can act on: the server's message, its
 * SQLSTATE, the line of the script it points at, and its detail and hint when it gives them.
 */
interface PgErrorFields {
  message?: unknown;
  code?: unknown;
  position?: unknown;
  detail?: unknown;
  hint?: unknown;
}

export function describeSqlError(error: unknown, script: string): string {
  if (!(error instanceof Error)) return String(error);
  const fields = error as PgErrorFields;
  const parts = [error.message];
  if (typeof fields.code === 'string') parts.push(`(SQLSTATE ${fields.code})`);
  const position = Number(fields.position);
  if (Number.isInteger(position) && position > 0) {
    // PostgreSQL counts characters from 1 within the query text it received: the whole script.
    const line = script.slice(0, position - 1).split('\n').length;
    parts.push(`at line ${line}`);
  }
  if (typeof fields.detail === 'string') parts.push(`Detail: ${fields.detail}`);
  if (typeof fields.hint === 'string') parts.push(`Hint: ${fields.hint}`);
  return parts.join(' ');
}
