/**
 * RFC 8414 / OpenID discovery: oidc-provider writes both documents
 * (/.well-known/oauth-authorization-server and /.well-known/openid-configuration); this
 * middleware, installed with provider.use, adds what is ours after it: the agent_auth block, our
 * API scopes in scopes_supported (oidc-provider lists only its OpenID ones), the guide, and the
 * auth methods of revocation and introspection (RFC 8414 reads an absent list as
 * client_secret_basic only, which would tell public clients they cannot revoke), and
 * client_id_metadata_document_supported (client ids that are metadata document URLs).
 */
import { SERVER_METADATA_PATHS } from '@pag/contracts';
import type { Middleware } from 'koa';
import { SCOPES_SUPPORTED } from '../provider/scopes.ts';
import { agentAuthBlock } from './agent-auth.ts';

export const DISCOVERY_PATHS: ReadonlySet<string> = new Set(Object.values(SERVER_METADATA_PATHS));

export function serverMetadataExtensions(publicUrl: string): Middleware {
  const agentAuth = agentAuthBlock(publicUrl);
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || ctx.status !== 200 || !DISCOVERY_PATHS.has(ctx.path)) return;
    const body = ctx.body;
    if (typeof body !== 'object' || body === null) return;
    Object.assign(body, {
      scopes_supported: [...SCOPES_SUPPORTED],
      service_documentation: `${publicUrl}/auth.md`,
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
      agent_auth: agentAuth,
      // A client id may be the https URL of its metadata document (provider/client-documents.ts).
      client_id_metadata_document_supported: true,
    });
  };
}
