/**
 * An Ed25519 device key (docs/adr/0012) with WebCrypto: generate or take a key pair, register its
 * public key, tell the human where the owner approves it (`onApprovalNeeded`, with the fingerprint
 * to compare), then buy access tokens with signed JWT assertions (RFC 7523, EdDSA) from the token
 * endpoint the discovery documents name: while the device is pending the answer is 403
 * `device_pending_approval` and the SDK waits; later, each expiry or 401 signs a new assertion.
 */
import { ExpiringCredential } from '../credentials.ts';
import { PagError, SDK_CODES } from '../errors.ts';
import type { ResponseOf } from '../operations.ts';
import { base64url, type KeyPair, type PrivateKey, randomBase64url } from '../pkce.ts';
import { jsonOf, type Transport } from '../transport.ts';
import { discover } from './oauth.ts';
import { postTokenRequest, tokensOrThrow } from './token-endpoint.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface DeviceApproval {
  deviceId: string;
  userCode: string;
  claimUrl: string;
  /** SHA-256 of the raw public key, base64url: the owner compares it on the approval page. */
  fingerprint: string;
  instructions: string;
}

export interface DeviceOptions {
  /** The device's name, shown to the owner. */
  deviceName: string;
  /** A key pair to use (an extractable Ed25519 KeyPair); a new one is made when absent. */
  keyPair?: KeyPair;
  /** The id of a device registered earlier with `keyPair`: no new registration. */
  deviceId?: string;
  /** Called once registered, with what to store to come back as the same device. */
  onRegistered?(device: { deviceId: string; keyPair: KeyPair }): void | Promise<void>;
  /** Told where the owner approves; the SDK starts waiting when it returns. */
  onApprovalNeeded(approval: DeviceApproval): void | Promise<void>;
  /** Longest wait for the owner's approval, in seconds (default: a day). */
  maxWaitSeconds?: number;
  /** Seconds between two tries while pending, unless the answer says Retry-After (default 5). */
  pollIntervalSeconds?: number;
}

const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/** A compact JWS (EdDSA) asserting the device to the token endpoint, valid for two minutes. */
export async function signAssertion(
  privateKey: PrivateKey,
  deviceId: string,
  audience: string,
  nowMs: number,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const input = `${encodeJson({ alg: 'EdDSA', typ: 'JWT' })}.${encodeJson({
    iss: deviceId,
    sub: deviceId,
    aud: audience,
    iat,
    exp: iat + 120,
    jti: randomBase64url(16),
  })}`;
  const signature = await crypto.subtle.sign(
    { name: 'Ed25519' },
    privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** A new extractable Ed25519 key pair (WebCrypto, Node 24 and current browsers). */
export async function generateKeyPair(): Promise<KeyPair> {
  const generated = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
  // The typings answer CryptoKey | CryptoKeyPair for an algorithm given by name; Ed25519 is a pair.
  if (!('privateKey' in generated) || !('publicKey' in generated))
    throw new Error('Ed25519 generateKey answered a single key');
  return generated as KeyPair;
}

async function registerDevice(transport: Transport, keyPair: KeyPair, deviceName: string) {
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', keyPair.publicKey));
  return jsonOf<ResponseOf<'registerDevice'>>(
    await transport.send({
      method: 'POST',
      path: '/api/v1/agentic/asc/register',
      anonymous: true,
      json: { publicKey: base64url(raw), deviceName },
    }),
  );
}

export async function deviceCredential(
  transport: Transport,
  options: DeviceOptions,
  sleep: (ms: number) => Promise<void>,
  now: () => number,
): Promise<ExpiringCredential> {
  const keyPair = options.keyPair ?? (await generateKeyPair());
  const { server } = await discover(transport);
  let deviceId = options.deviceId;
  if (deviceId === undefined) {
    const device = await registerDevice(transport, keyPair, options.deviceName);
    deviceId = device.deviceId;
    await options.onRegistered?.({ deviceId, keyPair });
    await options.onApprovalNeeded({
      deviceId,
      userCode: device.userCode,
      claimUrl: device.claimUrl,
      fingerprint: device.fingerprint,
      instructions: `Please open ${device.claimUrl}, sign in as the gateway's owner, check that the fingerprint reads ${device.fingerprint} and approve "${options.deviceName}".`,
    });
  }
  const id = deviceId;
  const tokenRequest = async () =>
    postTokenRequest(transport, server.token_endpoint, {
      grant_type: JWT_BEARER_GRANT,
      assertion: await signAssertion(keyPair.privateKey, id, server.token_endpoint, now()),
      client_id: id,
    });
  const deadline = now() + (options.maxWaitSeconds ?? 24 * 3600) * 1000;
  let result = await tokenRequest();
  while (!result.ok && result.status === 403 && result.error === 'device_pending_approval') {
    const waitSeconds = result.retryAfterSeconds ?? options.pollIntervalSeconds ?? 5;
    if (now() + waitSeconds * 1000 > deadline)
      throw new PagError({
        code: SDK_CODES.GAVE_UP_WAITING,
        message: `Device ${id} was still waiting for approval when the wait ended.`,
      });
    await sleep(waitSeconds * 1000);
    result = await tokenRequest();
  }
  if (!result.ok && result.status === 401 && result.error === 'invalid_client')
    throw new PagError({
      code: SDK_CODES.ACCESS_DENIED,
      message: `Device ${id} was revoked or is unknown (${result.description}).`,
      hint: 'Register a new key and ask the owner again.',
      status: result.status,
    });
  const first = tokensOrThrow(result, `Device ${id} got no token`);
  const obtain = async () => {
    const tokens = tokensOrThrow(await tokenRequest(), `Device ${id} got no new token`);
    return { token: tokens.access_token, expiresInSeconds: tokens.expires_in ?? 3600 };
  };
  return new ExpiringCredential(obtain, now, {
    token: first.access_token,
    expiresInSeconds: first.expires_in ?? 3600,
  });
}
