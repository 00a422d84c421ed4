export type { AuditMetrics } from './audit-metrics.ts';
export type { ChainContent } from './chain/chain-hash.ts';
export { canonicalContent, chainContent, chainHash, GENESIS_HASH } from './chain/chain-hash.ts';
export { REQUEST_ACTION, recordContent } from './chain/record-content.ts';
export type { Checkpoint, CheckpointVerdict } from './checkpoints/checkpoint-signature.ts';
export { checkpointStatement, signCheckpoint, verifyCheckpoint } from './checkpoints/checkpoint-signature.ts';
export type { SigningKey, VerifyKey } from './checkpoints/signing-keys.ts';
export { keyIdOf, signingKeyFromSeed, verifyKeyFromRaw, verifyKeys } from './checkpoints/signing-keys.ts';
export type { AuditConfig } from './config.ts';
export { auditConfig, loadAuditConfig } from './config.ts';
export { auditDatabase } from './database.ts';
export { auditService } from './definition.ts';
export type { AuditDeps, RunningAudit } from './service.ts';
export { startAudit } from './service.ts';
export type { AppendResult } from './store/audit-log.ts';
export { AuditLog, InvalidAuditEventError } from './store/audit-log.ts';
export type { ChainHead } from './store/chain-head.ts';
export type { AuditLogin } from './store/login-role.ts';
export { AUDIT_LOGIN_ROLE, ensureAuditLogin } from './store/login-role.ts';
export type { OpenAuditLog } from './store/open-audit-log.ts';
export { openAuditLog } from './store/open-audit-log.ts';
export { AuditRoleError } from './store/privilege-guard.ts';
export type { OpenAuditRecords } from './store/record-query.ts';
export { AuditRecords, openAuditRecords } from './store/record-query.ts';
export type {
  ChainBreak,
  ChainBreakKind,
  ChainIntact,
  ChainStart,
  SignedHead,
  VerifyProgress,
  VerifyResult,
} from './verify/chain-break.ts';
export type { ChainRow, ChainSource } from './verify/chain-source.ts';
export type { TrustedKeys } from './verify/checkpoint-check.ts';
export type { VerifyAuditLogOptions } from './verify/verify-audit-log.ts';
export { verifyAuditLog } from './verify/verify-audit-log.ts';
export type { VerifyOptions } from './verify/verify-chain.ts';
export { verifyChain } from './verify/verify-chain.ts';
