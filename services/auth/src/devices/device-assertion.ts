/**
 * The device's proof of possession at the token endpoint: an RFC 7523 JWT assertion signed with
 * its Ed25519 key. What a valid assertion is:
 * - a compact JWS with alg EdDSA (or its fully specified name Ed25519), verified with the key the
 *   device registered, and nothing else;
 * - iss and sub are the device id (which is also the client_id of the request);
 * - aud is the token endpoint URL or the issuer (either, as a string or in an array);
 * - exp at most 5 minutes ahead, iat not older than 5 minutes, both with 30 s of clock tolerance;
 * - jti present and never seen before for this device: each accepted jti is kept until the
 *   assertion could no longer pass anyway (exp + tolerance), then purged, so a replay is refused
 *   while it matters and the table holds only minutes of history.
 * A failure is invalid_grant (400) with a description saying which rule it broke.
 */

import { isStorableText } from '@pag/contracts';
import { errors as joseErrors, jwtVerify } from 'jose';
import { errors } from 'oidc-provider';
import type { DeviceAssertions } from '../store/device-assertions.ts';
import type { DeviceRecord } from '../store/device-record.ts';
import { publicKeyObject } from './device-keys.ts';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ASSERTION_MAX_LIFETIME_SECONDS = 300;
export const CLOCK_TOLERANCE_SECONDS = 30;
const JTI_MAX_LENGTH = 256;

/** invalid_grant with our description (oidc-provider's class carries a generic one). */
export function invalidGrant(description: string): errors.InvalidGrant {
  const error = new errors.InvalidGrant();
  error.error_description = description;
  return error;
}

export interface AssertionInput {
  /** The client_id of the token request: the device the assertion must be from. */
  deviceId: string;
  assertion: unknown;
  /** The values aud may take: the token endpoint URL and the issuer. */
  audiences: readonly string[];
  now?: Date;
}

/**
 * The device whose valid, fresh assertion this is (its jti now used up); null when no device has
 * this id. Throws invalid_grant for anything else that is wrong.
 */
export async function verifyDeviceAssertion(
  assertions: DeviceAssertions,
  input: AssertionInput,
): Promise<DeviceRecord | null> {
  // No device id holds a NUL or an unpaired surrogate (PostgreSQL could not even compare it).
  if (!isStorableText(input.deviceId)) return null;
  const device = await assertions.findDevice(input.deviceId);
  if (device === null) return null;
  if (typeof input.assertion !== 'string' || input.assertion === '')
    throw new errors.InvalidRequest('assertion is missing: send the signed JWT as the assertion parameter');
  const now = input.now ?? new Date();
  const payload = await checkedClaims(input, device.publicKey, now);
  const exp = payload.exp as number;
  if (exp > now.getTime() / 1000 + ASSERTION_MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
    throw invalidGrant(
      `the assertion must expire at most ${ASSERTION_MAX_LIFETIME_SECONDS} s after it is made`,
    );
  const jti = payload.jti as string;
  if (jti.length > JTI_MAX_LENGTH) throw invalidGrant(`jti must be at most ${JTI_MAX_LENGTH} characters`);
  const keepUntil = new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000);
  if (!(await assertions.use(device.id, jti, keepUntil, now)))
    throw invalidGrant('this assertion was already used (same jti): sign a new one for every request');
  return device;
}

async function checkedClaims(input: AssertionInput, publicKey: string, now: Date) {
  try {
    const { payload } = await jwtVerify(input.assertion as string, publicKeyObject(publicKey), {
      algorithms: ['EdDSA', 'Ed25519'],
      issuer: input.deviceId,
      subject: input.deviceId,
      audience: [...input.audiences],
      requiredClaims: ['exp', 'iat', 'jti'],
      maxTokenAge: ASSERTION_MAX_LIFETIME_SECONDS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
    });
    if (typeof payload.jti !== 'string' || payload.jti === '')
      throw invalidGrant('jti must be a non-empty string');
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError)
      throw invalidGrant(`the assertion was refused: ${error.message}`);
    throw error;
  }
}
