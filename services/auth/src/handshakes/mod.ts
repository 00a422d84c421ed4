export { claimCodeHash, claimUrl, newClaimCode } from './claim-code.ts';
export type { CreationLimits } from './creation-limits.ts';
export { DEFAULT_CREATION_LIMITS } from './creation-limits.ts';
export type {
  Approval,
  ApprovedHandshake,
  CreatedHandshake,
  Handshake,
  HandshakeRecord,
  HandshakeStoreOptions,
  NewHandshake,
} from './handshake-store.ts';
export {
  defaultHandshakeExpiry,
  effectiveStatus,
  HANDSHAKE_TOKEN_DAYS,
  HandshakeStore,
  isHandshakeId,
} from './handshake-store.ts';
