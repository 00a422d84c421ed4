export { IntrospectionClient } from './introspection-client.ts';
export { readIntrospectionAnswer } from './introspection-response.ts';
export type { ActiveToken, IntrospectionClientOptions, IntrospectOptions } from './introspection-types.ts';
export { tokenSha256 } from './token-hash.ts';
