export { DEVICE_TOKEN_SECONDS, JWT_BEARER } from './device-grant.ts';
export { groupedFingerprint, keyFingerprint } from './device-keys.ts';
export type { NewDevice, RegistrationLimits } from './device-registration.ts';
export { DEFAULT_REGISTRATION_LIMITS, DeviceRegistrations, deviceClaimUrl } from './device-registration.ts';
export type { DeviceRecord, DeviceStatusValue } from './device-status.ts';
export { deviceStatus } from './device-status.ts';
export type { Approval, DeviceStoreOptions } from './device-store.ts';
export { DeviceStore, isDeviceId } from './device-store.ts';
