/**
 * `pnpm pag device …` against a running stack's data: a device registered over HTTP is claimed and
 * approved by its user code (its assertions then buy a token the API accepts), listed with its
 * fingerprint, revoked (new assertions get 401) or denied; a fingerprint that differs stops the
 * approval. Another owner's device, and operator mistakes, are one line and exit code 2.
 */
import type { KeyObject } from 'node:crypto';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from './support/pag.ts';

let stack: StackProcess;
beforeAll(async () => {
  stack = await startStackProcess();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const pag = pagCommand(() => stack.dataDir);

interface TestDevice extends DeviceRegistered {
  privateKey: KeyObject;
}

let registrations = 0;
async function registerDevice(): Promise<TestDevice> {
  registrations += 1;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const response = await fetch(`${stack.url}/api/v1/agentic/asc/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      publicKey: publicKey.export({ format: 'jwk' }),
      deviceName: `cli device ${registrations}`,
    }),
  });
  expect(response.status).toBe(201);
  return { ...((await response.json()) as DeviceRegistered), privateKey };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function tokenRequest(device: TestDevice) {
  const now = Math.floor(Date.now() / 1000);
  const id = device.deviceId;
  const claims = {
    iss: id,
    sub: id,
    aud: `${stack.url}/oauth/token`,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
  };
  const input = `${b64({ alg: 'EdDSA' })}.${b64(claims)}`;
  const assertion = `${input}.${sign(null, Buffer.from(input), device.privateKey).toString('base64url')}`;
  const response = await fetch(`${stack.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion,
      client_id: id,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const ALICE = 'alice@example.test';
const BOB = 'bob@example.test';

describe('pag device', () => {
  beforeAll(async () => {
    for (const email of [ALICE, BOB])
      expect((await pag('owner', 'create', '--email', email, '--password', 'a long enough pass')).code).toBe(
        0,
      );
  });

  test('approve --user-code claims and approves; the device then gets a token the API accepts', async () => {
    const device = await registerDevice();
    expect((await tokenRequest(device)).status).toBe(403);
    const approved = await pag(
      'device',
      'approve',
      '--owner',
      ALICE,
      '--user-code',
      device.userCode.toLowerCase(),
      '--scopes',
      'read availability',
      '--daily',
      '50',
      // With `=`: a fingerprint is base64url and begins with '-' one time in 64, which parseArgs
      // would read as an option of its own.
      `--fingerprint=${device.fingerprint}`,
    );
    expect(approved).toMatchObject({ code: 0, err: [] });
    expect(approved.out).toEqual([
      `claimed ${device.deviceId} "cli device 1", key fingerprint ${device.fingerprint}`,
      expect.stringMatching(
        new RegExp(
          `^approved ${device.deviceId} "cli device 1" of ${ALICE}: agent ag_\\S+, scopes read availability, per day 50, per month none\\.`,
        ),
      ),
    ]);
    const { status, body } = await tokenRequest(device);
    expect(status).toBe(200);
    expect(body.scope).toBe('read availability');
    const capabilities = await fetch(`${stack.url}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(capabilities.status).toBe(200);

    const listed = await pag('device', 'list', '--owner', ALICE);
    expect(listed.code).toBe(0);
    expect(listed.out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${device.deviceId}  approved  "cli device 1"  fingerprint ${device.fingerprint}  registered \\S+Z  agent ag_\\S+  scopes read availability  per day 50  per month none$`,
        ),
      ),
    ]);
    expect((await pag('device', 'list', '--owner', BOB)).out).toEqual([`no devices for ${BOB}`]);
  });

  test('revoke ends the device: new assertions get 401; another owner cannot revoke it', async () => {
    const device = await registerDevice();
    expect((await pag('device', 'approve', '--owner', ALICE, '--user-code', device.userCode)).code).toBe(0);
    expect((await tokenRequest(device)).status).toBe(200);

    const stranger = await pag('device', 'revoke', '--owner', BOB, '--id', device.deviceId);
    expect(stranger.code).toBe(2);
    expect(stranger.err[0]).toMatch(/^pag: No device dev_\S+ among yours\.$/);
    expect((await tokenRequest(device)).status).toBe(200);

    const revoked = await pag('device', 'revoke', '--owner', ALICE, '--id', device.deviceId);
    expect(revoked).toMatchObject({ code: 0, err: [] });
    expect(revoked.out[0]).toMatch(/^revoked dev_\S+ "cli device \d+" of alice@example\.test: /);
    const refused = await tokenRequest(device);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    const json = JSON.parse((await pag('device', 'list', '--owner', ALICE, '--json')).out.join('\n')) as {
      id: string;
      status: string;
    }[];
    expect(json.find((row) => row.id === device.deviceId)?.status).toBe('revoked');
  });

  test('deny by user code: the device is refused; a code another owner claimed is not found', async () => {
    const device = await registerDevice();
    expect((await pag('device', 'deny', '--owner', ALICE, '--user-code', device.userCode)).code).toBe(0);
    const { status, body } = await tokenRequest(device);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
    const stolen = await pag('device', 'approve', '--owner', BOB, '--user-code', device.userCode);
    expect(stolen.code).toBe(2);
    expect(stolen.err[0]).toBe('pag: No device waits for this code.');
  });

  test('a fingerprint that differs stops the approval; the device stays pending', async () => {
    const device = await registerDevice();
    const result = await pag(
      'device',
      'approve',
      '--owner',
      ALICE,
      '--user-code',
      device.userCode,
      '--fingerprint',
      'A'.repeat(43),
    );
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(/^pag: the key fingerprint of dev_\S+ is \S+, not A+: not approved/);
    expect((await tokenRequest(device)).body.error).toBe('device_pending_approval');
  });

  test.each([
    [['device', 'approve', '--owner', ALICE], /^pag: --id or --user-code is required$/],
    [['device', 'approve', '--owner', ALICE, '--id', 'dev_x', '--user-code', 'ABCD-EFGH'], /not both$/],
    [
      ['device', 'approve', '--owner', ALICE, '--id', 'dev_x', '--daily', 'many'],
      /--daily must be a whole number/,
    ],
    [['device', 'revoke', '--owner', ALICE], /^pag: --id is required$/],
    [
      ['device', 'list', '--owner', 'nobody@example.test'],
      /^pag: no owner with the email nobody@example\.test$/,
    ],
    [
      ['device', 'deny', '--owner', ALICE, '--id', 'dev_unknown'],
      /^pag: No device with this id among yours\.$/,
    ],
  ])('%j is refused with one line and exit code 2', async (argv, message) => {
    const result = await pag(...argv);
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(message);
  });
});
