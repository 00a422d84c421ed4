/**
 * RFC 9728 protected-resource metadata for each identifier of the gateway (contracts'
 * protected-resources.ts): the API at /.well-known/oauth-protected-resource/api/v1, the MCP
 * endpoint at /.well-known/oauth-protected-resource/mcp, and the base URL at
 * /.well-known/oauth-protected-resource, each at the path-inserted form of its identifier (what
 * the gateway's WWW-Authenticate names and what an MCP client probes first). The MCP endpoint's
 * and the base URL's documents list only the MCP scopes (what the 401 challenge names): an MCP
 * client given one of them before any 401 asks for `scopes_supported` as a whole (the MCP SDK's
 * auth() joins it into the request's scope), so listing every scope there would have it ask for
 * `full`. RFC 9728 lets a resource leave out scopes it supports; a tool call needing more gets
 * the 403 step-up challenge naming the scope. The API's document lists every scope.
 */
import type { ProtectedResourceName } from '@pag/contracts';
import { MCP_CHALLENGE_SCOPES, PROTECTED_RESOURCES, protectedResourceId } from '@pag/contracts';
import { STATIC_API_SCOPES } from '../provider/scopes.ts';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name: string;
  resource_documentation: string;
}

const NAMES: Record<ProtectedResourceName, string> = {
  api: 'Personal API Gateway',
  mcp: 'Personal API Gateway (MCP)',
  base: 'Personal API Gateway',
};

/** Each metadata document by its path. */
export function protectedResourceDocuments(publicUrl: string): Map<string, ProtectedResourceMetadata> {
  const documents = new Map<string, ProtectedResourceMetadata>();
  for (const name of Object.keys(PROTECTED_RESOURCES) as ProtectedResourceName[]) {
    const path = `/.well-known/oauth-protected-resource${PROTECTED_RESOURCES[name]}`;
    documents.set(path, protectedResourceMetadata(publicUrl, name));
  }
  return documents;
}

export function protectedResourceMetadata(
  publicUrl: string,
  name: ProtectedResourceName = 'api',
): ProtectedResourceMetadata {
  return {
    resource: protectedResourceId(publicUrl, name),
    authorization_servers: [publicUrl],
    scopes_supported: name === 'api' ? [...STATIC_API_SCOPES] : [...MCP_CHALLENGE_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: NAMES[name],
    resource_documentation: `${publicUrl}/auth.md`,
  };
}
