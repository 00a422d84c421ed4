export type { Account, AccountStoreOptions, CreateAccountInput, SignInResult } from './account-store.ts';
export { AccountStore } from './account-store.ts';
export { normaliseEmail, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './credentials.ts';
export type { LoginSubject, ThrottlePolicy } from './login-throttle.ts';
export { DEFAULT_THROTTLE_POLICY, LoginThrottle } from './login-throttle.ts';
export { hashPassword, PASSWORD_HASH_OPTIONS, verifyPassword } from './password-hashing.ts';
