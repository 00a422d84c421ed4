/**
 * Holds the SDK's operation table (src/operations.ts) against an OpenAPI document: every row's
 * path and method exist, its success status is documented, and its JSON body and answer are the
 * component schemas the row names (from which the SDK's types are computed). Answers the problems
 * found, one line each; empty when the table and the document agree.
 */
import { type Operation, Operations } from '../src/operations.ts';

type JsonObject = Record<string, unknown>;

const REF = '#/components/schemas/';

function jsonRef(content: unknown): string | null {
  const schema = (content as { 'application/json'?: { schema?: { $ref?: string } } } | undefined)?.[
    'application/json'
  ]?.schema;
  return schema?.$ref?.startsWith(REF) ? schema.$ref.slice(REF.length) : null;
}

function checkOperation(id: string, row: Operation, document: JsonObject): string[] {
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  const operation = paths[row.path]?.[row.method.toLowerCase()];
  if (operation === undefined) return [`${id}: the document has no ${row.method} ${row.path}`];
  const problems: string[] = [];
  const responses = operation.responses as Record<string, { content?: unknown }>;
  // `2XX`: whatever the connected service answers; a document may name it so or list 2xx statuses.
  const success =
    row.success === '2XX'
      ? (responses['2XX'] ?? Object.entries(responses).find(([status]) => /^2\d\d$/.test(status))?.[1])
      : responses[String(row.success)];
  if (success === undefined) problems.push(`${id}: ${row.method} ${row.path} documents no ${row.success}`);
  else if (row.response !== null && jsonRef(success.content) !== row.response)
    problems.push(`${id}: answers ${jsonRef(success.content)} in the document, ${row.response} in the SDK`);
  const body = jsonRef((operation.requestBody as { content?: unknown } | undefined)?.content);
  if (body !== row.body) problems.push(`${id}: the body is ${body} in the document, ${row.body} in the SDK`);
  const schemas = (document.components as { schemas: JsonObject }).schemas;
  for (const name of [row.body, row.response])
    if (name !== null && schemas[name] === undefined) problems.push(`${id}: no component ${name}`);
  return problems;
}

export function operationProblems(document: JsonObject): string[] {
  return Object.entries(Operations).flatMap(([id, row]) => checkOperation(id, row, document));
}
