/**
 * The bad inputs of test/unstorable-text.test.ts and how it builds them: a NUL, an unpaired
 * surrogate and malformed UTF-8, put in place of each string of a valid body; valid bodies are
 * made from the OpenAPI document (built from the route table) by its examples.
 */
import type { RouteDefinition } from '@pag/contracts';
import { buildOpenApiDocument } from '@pag/contracts';

/**
 * As a decoded string (JSON bodies) and percent-encoded (forms, queries, paths). A URL cannot
 * carry a lone surrogate: its UTF-8-style encoding %ED%A0%80 is malformed UTF-8, which decoders
 * replace with U+FFFD or keep percent-encoded, as they do %C3%28.
 */
export const BAD = {
  nul: { text: 'a\u0000b', encoded: 'a%00b' },
  surrogate: { text: 'a\ud800b', encoded: 'a%ED%A0%80b' },
  malformedUtf8: { text: null, encoded: 'a%C3%28b' },
} as const;
export type BadKind = keyof typeof BAD;
export const BAD_KINDS = Object.keys(BAD) as BadKind[];
/** What must be refused (400, nothing written); the rest may be stored as decoded, and must only never fail. */
export const REFUSED_IN_JSON = new Set<BadKind>(['nul', 'surrogate']);
export const REFUSED_ENCODED = new Set<BadKind>(['nul']);

/** `sample` as a JSON body with the bad text of `kind` at `path` (for malformed UTF-8: raw bytes). */
export function jsonWith(sample: unknown, path: string[], kind: BadKind): Buffer {
  const marker = '@@BAD@@';
  const body = structuredClone(sample) as Record<string, unknown>;
  let at: Record<string, unknown> = body;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path.at(-1) as string] = BAD[kind].text ?? marker;
  const json = Buffer.from(JSON.stringify(body));
  const index = json.indexOf(marker);
  if (index === -1) return json;
  return Buffer.concat([
    json.subarray(0, index),
    Buffer.from([0x61, 0xc3, 0x28, 0x62]),
    json.subarray(index + 7),
  ]);
}

/** Every path to a string in a JSON value. */
export function stringPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value === 'string') return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]));
}

type JsonSchema = Record<string, unknown>;
/** The OpenAPI document the gateway serves, built from the route table. */
const openApi = buildOpenApiDocument({ serverUrl: 'http://localhost', version: 'test' }) as unknown as {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>
  >;
  components: { schemas: Record<string, JsonSchema> };
};

export function bodySchemaOf(route: RouteDefinition): JsonSchema {
  const operation = openApi.paths[route.path]?.[route.method.toLowerCase()];
  const schema = operation?.requestBody?.content['application/json']?.schema;
  if (schema === undefined) throw new Error(`no request body for ${route.id} in the OpenAPI document`);
  return schema;
}

/** A valid value of a JSON schema from its examples, consts and first choices. */
export function sampleOf(schema: JsonSchema): unknown {
  if (typeof schema.$ref === 'string') {
    return sampleOf(openApi.components.schemas[schema.$ref.split('/').at(-1) as string] ?? {});
  }
  const examples = schema.examples as unknown[] | undefined;
  if (examples?.length) return examples[0];
  if ('const' in schema) return schema.const;
  const choices = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (choices) return sampleOf(choices[0] as Record<string, unknown>);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'array') return [sampleOf(schema.items as Record<string, unknown>)];
  if (schema.type === 'object') {
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    const required = (schema.required ?? []) as string[];
    return Object.fromEntries(required.map((name) => [name, sampleOf(properties[name] ?? {})]));
  }
  throw new Error(`no sample for ${JSON.stringify(schema)}`);
}
