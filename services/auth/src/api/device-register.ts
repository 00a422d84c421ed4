/**
 * auth.device.register (POST /api/v1/agentic/asc/register, no token): records an Ed25519 key as
 * a pending device within the registration limit, keyed by the caller's address as the gateway
 * saw it; 201 with the device id (its OAuth client id), the user code and claim URL for the
 * owner, and the key fingerprint both sides compare. A key already registered is 409.
 */
import { AuthEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const deviceRegister = handle(
  AuthEndpoints.deviceRegister,
  async (caller, { body }, { devices }: AuthHandlerDeps) => {
    const { device, claimUrl } = await devices.register({
      publicKey: body.publicKey,
      name: body.deviceName,
      // Without the gateway's header every caller shares one bucket: stricter, never looser.
      clientAddress: caller.clientAddress ?? 'unknown',
    });
    caller.logger.info({ deviceId: device.id }, 'device registered');
    return {
      deviceId: device.id,
      status: 'pending' as const,
      userCode: device.userCode,
      claimUrl,
      fingerprint: device.fingerprint,
    };
  },
);
