/**
 * GatewayContainer beyond the README's example, on two replicas of the gateway and the auth
 * service: the owner's approvals (a handshake, a device by its user code and fingerprint), the
 * operator CLI's failures, and the front: connections spread over the gateway replicas, and a
 * replica that stops answering /readyz (paused) gets none until it answers again.
 */
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { get } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered, HandshakeCreated } from '@pag/contracts';
import type { Owner, StartedGatewayContainer } from '@pag/testkit';
import { GatewayContainer } from '@pag/testkit';
import { eventually } from '../../packages/kit/src/testing/mod.ts';

const docker = async (...args: string[]) => (await promisify(execFile)('docker', args)).stdout.trim();

let gw: StartedGatewayContainer;
let owner: Owner;
beforeAll(async () => {
  gw = await new GatewayContainer().withServices(['gateway', 'auth']).withReplicas(2).start();
  owner = await gw.createOwner();
}, 240_000);
afterAll(async () => {
  await gw?.stop();
});

const post = (path: string, body: unknown) =>
  fetch(`${gw.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const capabilities = async (token: string) => {
  const response = await fetch(`${gw.baseUrl}/api/v1/tokens/me/capabilities`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { scopes: string[]; tokenKind: string };
};

describe('the owner helpers', () => {
  test('approveHandshake answers the token the agent then holds, with the scopes granted', async () => {
    const created = await post('/api/v1/handshakes', {
      agentId: 'kit-agent@laptop',
      requestedScopes: ['read', 'availability'],
      message: 'testing the kit',
    });
    expect({ status: created.status, body: await created.clone().json() }).toMatchObject({ status: 201 });
    const { handshakeId } = (await created.json()) as HandshakeCreated;
    const token = await owner.approveHandshake(handshakeId, { scopes: ['read'], daily: 10 });
    expect((await capabilities(token)).scopes).toEqual(['read']);
    const status = await fetch(`${gw.baseUrl}/api/v1/handshakes/${handshakeId}/status`);
    expect(((await status.json()) as { status: string }).status).toBe('approved');
  }, 120_000);

  test('approveDevice claims a device by its user code, checks its fingerprint and approves it', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const rawKey = publicKey.export({ format: 'jwk' }).x as string;
    const registered = await post('/api/v1/agentic/asc/register', {
      publicKey: rawKey,
      deviceName: 'kit laptop',
    });
    expect(registered.status).toBe(201);
    const device = (await registered.json()) as DeviceRegistered;
    const fingerprint = createHash('sha256').update(Buffer.from(rawKey, 'base64url')).digest('base64url');
    // Another first character (one fingerprint in 64 starts with the one picked).
    const wrong = `${fingerprint.startsWith('x') ? 'y' : 'x'}${fingerprint.slice(1)}`;
    await expect(owner.approveDevice(device.userCode, { fingerprint: wrong })).rejects.toThrow(
      /pag device approve .*exited with/,
    );
    await owner.approveDevice(device.userCode, { fingerprint, scopes: ['read'] });

    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: device.deviceId, sub: device.deviceId, aud: `${gw.baseUrl}/oauth/token` };
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64({ ...claims, iat: now, exp: now + 60, jti: randomUUID() })}`;
    const assertion = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
    const tokenResponse = await fetch(`${gw.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
        client_id: device.deviceId,
      }),
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token } = (await tokenResponse.json()) as { access_token: string };
    expect(await capabilities(access_token)).toMatchObject({ tokenKind: 'device', scopes: ['read'] });
  }, 120_000);

  test('pag throws with what the CLI wrote on standard error', async () => {
    await expect(gw.pag(['owner', 'create', '--email', 'no-password@example.test'])).rejects.toThrow(
      /^pag owner create --email no-password@example\.test exited with 2: .*password/,
    );
    expect(await gw.pag(['agent', 'list', '--owner', owner.email])).toContain('kit-agent@laptop');
  }, 120_000);
});

/** One request on a connection of its own, so the front picks a replica for each. */
function status(path: string, timeoutMs = 5_000): Promise<number> {
  return new Promise((resolve) => {
    const request = get(`${gw.baseUrl}${path}`, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** How many HTTP requests a gateway container answered (its ops port's /metrics, from the host). */
async function answered(container: string): Promise<number> {
  const address = (await docker('port', container, '9000/tcp')).split('\n')[0] as string;
  const port = address.slice(address.lastIndexOf(':') + 1);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return [...metrics.matchAll(/^http_request_duration_seconds_count(?:\{[^}]*\})? (\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

test('the front spreads connections over the ready gateway replicas only', async () => {
  const gateways = (
    await docker(
      'ps',
      '-q',
      '--filter',
      `label=pag.testkit.instance=${gw.id}`,
      '--filter',
      'label=pag.testkit.service=gateway',
    )
  ).split('\n');
  expect(gateways).toHaveLength(2);
  const [first, second] = gateways as [string, string];

  const before = await Promise.all(gateways.map(answered));
  for (let i = 0; i < 6; i++) expect(await status('/api/v1/')).toBe(200);
  const after = await Promise.all(gateways.map(answered));
  expect(after[0]! - before[0]!).toBeGreaterThan(0);
  expect(after[1]! - before[1]!).toBeGreaterThan(0);

  // A paused replica answers nothing, /readyz included: the front must stop choosing it.
  await docker('pause', first);
  try {
    await eventually(
      async () => {
        const answers = await Promise.all([0, 1, 2, 3].map(() => status('/api/v1/', 1_000)));
        expect(answers).toEqual([200, 200, 200, 200]);
      },
      {
        what: 'every connection goes to the replica that is still ready',
        timeoutMs: 15_000,
        intervalMs: 100,
      },
    );
    const secondBefore = await answered(second);
    for (let i = 0; i < 6; i++) expect(await status('/api/v1/')).toBe(200);
    expect((await answered(second)) - secondBefore).toBe(6);
  } finally {
    await docker('unpause', first);
  }
  const firstBefore = await answered(first);
  await eventually(
    async () => {
      expect(await status('/api/v1/')).toBe(200);
      expect(await answered(first)).toBeGreaterThan(firstBefore);
    },
    { what: 'the unpaused replica gets connections again', timeoutMs: 15_000, intervalMs: 100 },
  );
}, 90_000);
