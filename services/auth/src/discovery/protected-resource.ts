/**
 * RFC 9728 protected-resource metadata for the API, at /.well-known/oauth-protected-resource and
 * at its path-inserted form /.well-known/oauth-protected-resource/api/v1 (what the gateway's
 * WWW-Authenticate names). The resource is `${PUBLIC_URL}/api/v1`, the audience of every token.
 */
import { STATIC_API_SCOPES } from '../provider/scopes.ts';

export const PROTECTED_RESOURCE_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/v1',
] as const;

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name: string;
  resource_documentation: string;
}

export function protectedResourceMetadata(publicUrl: string): ProtectedResourceMetadata {
  return {
    resource: `${publicUrl}/api/v1`,
    authorization_servers: [publicUrl],
    scopes_supported: [...STATIC_API_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Personal API Gateway',
    resource_documentation: `${publicUrl}/auth.md`,
  };
}
