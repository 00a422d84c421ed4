export { agentAuthBlock } from './agent-auth.ts';
export { authGuide } from './auth-guide.ts';
export { AUTH_GUIDE_PATH, createDiscoveryRouter } from './discovery-router.ts';
export type { ProtectedResourceMetadata } from './protected-resource.ts';
export { PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from './protected-resource.ts';
export { DISCOVERY_PATHS, serverMetadataExtensions } from './server-metadata.ts';
