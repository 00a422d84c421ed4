/**
 * An OAuth endpoint of oauth-operations.ts as an OpenAPI operation: OAuth's error body with its
 * `error` values per status, HTML pages where the endpoint answers the browser, and the gateway's
 * own error body for what the forwarding itself can fail with.
 */
import type { ErrorCode } from '../errors.ts';
import { OAuthError } from '../schemas/oauth.ts';
import { errorResponse, type JsonObject, schemaRef } from './components.ts';
import type { OAuthOperation } from './oauth-operations.ts';

/** What the gateway answers itself when the auth service cannot (forward-auth.ts). */
const FORWARDING_FAILURES: Record<number, ErrorCode[]> = {
  502: ['UPSTREAM_ERROR'],
  503: ['SERVICE_UNAVAILABLE'],
  504: ['UPSTREAM_TIMEOUT'],
};

const HTML = 'text/html; charset=utf-8';

function oauthErrorResponse(status: number, errors: readonly string[]): JsonObject {
  return {
    description: `An OAuth error: ${errors.map((error) => `\`${error}\``).join(', ')}.`,
    ...(status === 401
      ? { headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Basic challenge.' } } }
      : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [schemaRef(OAuthError), { type: 'object', properties: { error: { enum: [...errors] } } }],
        },
      },
    },
  };
}

function requestBody(body: NonNullable<OAuthOperation['body']>): JsonObject {
  const type = body.type === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  return { required: true, content: { [type]: { schema: schemaRef(body.schema) } } };
}

function successResponse(success: OAuthOperation['success']): JsonObject {
  if ('schema' in success) {
    const type = success.mediaType ?? 'application/json';
    return { description: 'Success.', content: { [type]: { schema: schemaRef(success.schema) } } };
  }
  if ('html' in success)
    return { description: success.html, content: { [HTML]: { schema: { type: 'string' } } } };
  if ('redirect' in success) {
    return {
      description: success.redirect,
      headers: { Location: { required: true, schema: { type: 'string' }, description: 'Where to go next.' } },
      // koa writes a short page with the link for a client that does not follow redirects.
      content: { [HTML]: { schema: { type: 'string' } } },
    };
  }
  return { description: success.empty };
}

/** The OpenAPI operation of one OAuth endpoint. */
export function oauthOperation(op: OAuthOperation): JsonObject {
  const responses: Record<string, JsonObject> = { [String(op.success.status)]: successResponse(op.success) };
  for (const [status, errors] of Object.entries(op.oauthErrors))
    responses[status] = oauthErrorResponse(Number(status), errors);
  for (const [status, description] of Object.entries(op.htmlErrors ?? {}))
    responses[status] = { description, content: { [HTML]: { schema: { type: 'string' } } } };
  // oidc-provider's own failure: its error page where the endpoint answers a browser, else server_error.
  responses['500'] ??=
    op.htmlErrors === undefined
      ? oauthErrorResponse(500, ['server_error'])
      : { description: 'An HTML error page.', content: { [HTML]: { schema: { type: 'string' } } } };
  for (const [status, codes] of Object.entries(FORWARDING_FAILURES))
    responses[status] ??= errorResponse(Number(status), codes);
  const parameters = Object.entries(op.query ?? {}).map(([name, description]) => ({
    name,
    in: 'query',
    required: op.required?.includes(name) ?? false,
    description,
    schema: { type: 'string' },
  }));
  return {
    operationId: op.id,
    summary: op.summary,
    description: op.description,
    tags: ['oauth'],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body === undefined ? {} : { requestBody: requestBody(op.body) }),
    responses,
    security: op.auth === 'basic' ? [{ clientBasic: [] }] : [],
    'x-service': 'auth',
  };
}
