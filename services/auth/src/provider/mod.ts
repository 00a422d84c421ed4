export { createProvider } from './create-provider.ts';
export {
  extraTokenClaims,
  introspectionFeature,
  introspectionGate,
  resourceServerClients,
} from './introspection.ts';
export { escapeText, logoutSource, postLogoutSuccessSource, renderError } from './pages.ts';
export type { ProviderConfigOptions } from './provider-config.ts';
export { providerConfiguration } from './provider-config.ts';
export { checkRegistration, prepareRegistration, withRegistrationPolicy } from './registration-policy.ts';
export { resourceIndicators } from './resource-indicators.ts';
export { INTERACTION_PATH, OAUTH_ROUTES } from './routes.ts';
export { apiScopesFor, OIDC_SCOPES, SCOPES_SUPPORTED, STATIC_API_SCOPES } from './scopes.ts';
export { lifetimes } from './ttl.ts';
