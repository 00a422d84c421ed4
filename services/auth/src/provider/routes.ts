/** Where oidc-provider's endpoints live: the contracts' list, which the OpenAPI document describes. */
export { OAUTH_ROUTES } from '@pag/contracts';

/** oidc-provider's own login and consent steps, served by src/interactions. */
export const INTERACTION_PATH = '/interaction';
