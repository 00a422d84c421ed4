/**
 * Device registration, answered on the bus for the gateway (no token needed):
 * auth.device.register (POST /api/v1/agentic/asc/register) records an Ed25519 key as a pending
 * device within the registration limit, keyed by the caller's address as the gateway saw it; 201
 * with the device id (its OAuth client id), the user code and claim URL for the owner, and the key
 * fingerprint both sides compare. A key already registered is 409.
 * The gateway has validated the body already; it is parsed again here because a bus message is
 * only as trustworthy as whoever sent it.
 */
import type { DeviceRegistered, DispatchRequest } from '@pag/contracts';
import { AppError, AuthSubjects, DeviceRegisterRequest, MessageHeaders } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export async function serveDeviceApi({ bus, core, logger }: BusApiDeps): Promise<Subscription[]> {
  const devices = core.deviceRegistrations;

  const register = async (msg: BusMessage<DispatchRequest>): Promise<DeviceRegistered> => {
    const parsed = DeviceRegisterRequest.safeParse(msg.data?.body);
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || 'body'))];
      throw new AppError('INVALID_REQUEST', `Invalid device registration: ${fields.join(', ')}.`, {
        cause: parsed.error,
      });
    }
    const { device, claimUrl } = await devices.register({
      publicKey: parsed.data.publicKey,
      name: parsed.data.deviceName,
      // Without the gateway's header every caller shares one bucket: stricter, never looser.
      clientAddress: msg.headers[MessageHeaders.clientAddress] ?? 'unknown',
    });
    logger.info(
      { requestId: msg.headers[MessageHeaders.requestId], deviceId: device.id },
      'device registered',
    );
    return {
      deviceId: device.id,
      status: 'pending',
      userCode: device.userCode,
      claimUrl,
      fingerprint: device.fingerprint,
    };
  };

  return [await bus.handle(AuthSubjects.deviceRegister, register, QUEUE)];
}
