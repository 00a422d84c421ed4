/**
 * The gateway is one protected resource (RFC 9728) known by three identifiers, so that a client
 * given any of the URLs an agent is told about finds its way in:
 *
 * - `${PUBLIC_URL}/api/v1`: the HTTP API (every route under the prefix);
 * - `${PUBLIC_URL}/mcp`: the MCP endpoint;
 * - `${PUBLIC_URL}/`: the base URL itself, which also answers MCP (an MCP client given only the
 *   base URL posts to it, and the MCP SDK requires the metadata's `resource` to be a prefix of
 *   the URL it was given).
 *
 * Each has its metadata document at its path-inserted well-known URL, a token may be asked for any
 * of them (RFC 8707 `resource`), and the gateway accepts a token issued for any of them on every
 * route: they are one server, and an MCP tool call is an API request with the same token.
 */
import { API_PREFIX } from '../api.ts';

/** The path of each identifier below PUBLIC_URL ('' is the base URL, written with its slash). */
export const PROTECTED_RESOURCES = { api: API_PREFIX, mcp: '/mcp', base: '' } as const;
export type ProtectedResourceName = keyof typeof PROTECTED_RESOURCES;

/** The MCP endpoint's path. */
export const MCP_PATH = PROTECTED_RESOURCES.mcp;

/** The resource identifier: the base URL keeps its trailing slash, as `new URL(base).href` writes it. */
export function protectedResourceId(publicUrl: string, name: ProtectedResourceName): string {
  return name === 'base' ? `${publicUrl}/` : `${publicUrl}${PROTECTED_RESOURCES[name]}`;
}

/** Every identifier of the gateway: the audiences a token may carry (the base URL also without its slash). */
export function protectedResourceIds(publicUrl: string): string[] {
  return [
    protectedResourceId(publicUrl, 'api'),
    protectedResourceId(publicUrl, 'mcp'),
    protectedResourceId(publicUrl, 'base'),
    publicUrl,
  ];
}

/** Where a resource's metadata is: the well-known URL with the resource's path inserted. */
export function protectedResourceMetadataUrl(publicUrl: string, name: ProtectedResourceName): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${PROTECTED_RESOURCES[name]}`;
}

/** The resource a route belongs to, by its path: a 401 or 403 names that resource's metadata. */
export function protectedResourceOfPath(path: string): ProtectedResourceName {
  if (path === MCP_PATH || path.startsWith(`${MCP_PATH}/`)) return 'mcp';
  if (path === '/' || path === '') return 'base';
  return 'api';
}
