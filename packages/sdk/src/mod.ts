/**
 * @pag/sdk: a typed client for agents of the personal API gateway. Platform-neutral (fetch and
 * WebCrypto); the OAuth loopback redirect server is in '@pag/sdk/node'.
 */
export type { DeviceApproval, DeviceOptions } from './auth/device.ts';
export { generateKeyPair, signAssertion } from './auth/device.ts';
export type { HandshakeApproval, HandshakeOptions, HandshakeToken } from './auth/handshake.ts';
export type { OAuthOptions, OAuthSession, RedirectReceiver } from './auth/oauth.ts';
export type { ChatEvent, KnowledgeSearchOptions, ServiceResponse } from './client.ts';
export { PagClient } from './client.ts';
export type { ConnectedClient, ConnectOptions } from './connect.ts';
export { connect } from './connect.ts';
export type { Credential } from './credentials.ts';
export { staticToken } from './credentials.ts';
export type { PagErrorFields } from './errors.ts';
export { PagError, SDK_CODES } from './errors.ts';
export type { BodyOf, OperationId, ResponseOf, Schema, SchemaInput, SchemaName } from './operations.ts';
export { Operations } from './operations.ts';
export type { KeyPair } from './pkce.ts';
export type { RetryOptions, TransportOptions } from './transport.ts';
export { Transport } from './transport.ts';
