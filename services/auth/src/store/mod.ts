export type { AccountLookup } from './account-lookup.ts';
export { accountLookup } from './account-lookup.ts';
export type { OidcAdapterOptions, RevokedAccess } from './oidc-adapter.ts';
export { createOidcAdapterFactory } from './oidc-adapter.ts';
export { purgeExpiredPayloads } from './purge-job.ts';
export type { RecordKey } from './record-key.ts';
export { recordKey } from './record-key.ts';
export type { RegisteredClient } from './registered-clients.ts';
export { listRegisteredClients } from './registered-clients.ts';
