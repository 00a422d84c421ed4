/**
 * `pag device …`: an owner's Ed25519 devices, as /dashboard/devices shows and decides them.
 * - `pag device list --owner E [--json]`: the owner's devices, newest first, with fingerprints;
 * - `pag device approve --owner E (--id dev_… | --user-code XXXX-XXXX) [--scopes "s1 s2"]
 *   [--daily N] [--monthly N] [--fingerprint=F]`: approves a pending device (scopes default to
 *   `read`). With --user-code an unclaimed device is claimed for the owner first, as the claim
 *   page does; --fingerprint (as the device printed it) is compared before approving, and a
 *   mismatch leaves the device claimed but undecided;
 * - `pag device deny --owner E (--id dev_… | --user-code XXXX-XXXX)`;
 * - `pag device revoke --owner E --id dev_…`: final; every token of the device stops working.
 * Another owner's device is "not found", and so is a user code another owner claimed.
 * Decisions go through the auth service's own store, so they publish events.auth.device.* on the
 * running stack's bus as the dashboard's do (through the database, docs/adr/0033), and write their
 * audit events with the operator as actor (byOperator; docs/adr/0041).
 */
import type { AuthStore, DecidedBy, DeviceRecord } from '@pag/auth';
import { byOperator, deviceStatus } from '@pag/auth';
import type { Command, CommandContext } from '../command.ts';
import { CliError, limitOption, requireString, scopesOption } from '../command.ts';
import { ownerAccount } from './agent.ts';

const limitText = (limit: number | null | undefined) => (limit == null ? 'none' : String(limit));

/** One line per device: what `pag device list` prints. */
export function deviceLine(device: DeviceRecord): string {
  const agent = device.agent;
  return [
    device.id,
    deviceStatus(device),
    JSON.stringify(device.name),
    `fingerprint ${device.fingerprint}`,
    `registered ${device.createdAt.toISOString()}`,
    ...(agent === null
      ? []
      : [
          `agent ${agent.id}`,
          `scopes ${agent.scopes.join(' ')}`,
          `per day ${limitText(agent.dailyLimit)}`,
          `per month ${limitText(agent.monthlyLimit)}`,
        ]),
  ].join('  ');
}

/** The device named by --id, or claimed for the owner by --user-code (exactly one of them). */
async function targetDevice(
  devices: AuthStore['devices'],
  ownerId: string,
  context: CommandContext,
  by: DecidedBy,
): Promise<DeviceRecord> {
  const { id, 'user-code': userCode } = context.values;
  if (typeof id === 'string' && typeof userCode === 'string')
    throw new CliError('give --id or --user-code, not both');
  if (typeof userCode === 'string') {
    const device = await devices.claim(ownerId, userCode, by);
    context.out(`claimed ${device.id} ${JSON.stringify(device.name)}, key fingerprint ${device.fingerprint}`);
    return device;
  }
  if (typeof id === 'string' && id !== '') return devices.get(ownerId, id);
  throw new CliError('--id or --user-code is required');
}

const OWNER_AND_DEVICE = {
  owner: { type: 'string' },
  id: { type: 'string' },
  'user-code': { type: 'string' },
} as const;

const deviceList: Command = {
  name: 'device list',
  usage: '--owner E [--json]',
  options: { owner: { type: 'string' }, json: { type: 'boolean' } },
  async run(context) {
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const list = await store.devices.list(owner.id);
    if (context.values.json === true) {
      const rows = list.map((device) => ({
        id: device.id,
        name: device.name,
        status: deviceStatus(device),
        fingerprint: device.fingerprint,
        createdAt: device.createdAt,
        decidedAt: device.decidedAt,
        agentId: device.agent?.id ?? null,
        scopes: device.agent?.scopes ?? [],
        dailyLimit: device.agent?.dailyLimit ?? null,
        monthlyLimit: device.agent?.monthlyLimit ?? null,
      }));
      context.out(JSON.stringify(rows, null, 2));
      return;
    }
    if (list.length === 0) {
      context.out(`no devices for ${owner.email}`);
      return;
    }
    for (const device of list) context.out(deviceLine(device));
  },
};

const deviceApprove: Command = {
  name: 'device approve',
  usage:
    '--owner E (--id dev_… | --user-code XXXX-XXXX) [--scopes "s1 s2"] [--daily N] [--monthly N] [--fingerprint=F]',
  options: {
    ...OWNER_AND_DEVICE,
    scopes: { type: 'string' },
    daily: { type: 'string' },
    monthly: { type: 'string' },
    fingerprint: { type: 'string' },
  },
  async run(context) {
    const scopes = scopesOption(context) ?? ['read'];
    const dailyLimit = limitOption(context, 'daily');
    const monthlyLimit = limitOption(context, 'monthly');
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const { devices } = store;
    // One request id for the command: a claim and the decision after it correlate.
    const by = byOperator();
    const device = await targetDevice(devices, owner.id, context, by);
    const expected = context.values.fingerprint;
    if (typeof expected === 'string' && expected.replace(/\s/g, '') !== device.fingerprint)
      throw new CliError(
        `the key fingerprint of ${device.id} is ${device.fingerprint}, not ${expected}: not approved (deny it with pag device deny --id ${device.id})`,
      );
    const { agent } = await devices.approve(owner.id, device.id, { scopes, dailyLimit, monthlyLimit }, by);
    context.out(
      `approved ${device.id} ${JSON.stringify(device.name)} of ${owner.email}: agent ${agent.id}, scopes ${agent.scopes.join(' ')}, per day ${limitText(agent.dailyLimit)}, per month ${limitText(agent.monthlyLimit)}. The device now obtains tokens with its signed assertions.`,
    );
  },
};

const deviceDeny: Command = {
  name: 'device deny',
  usage: '--owner E (--id dev_… | --user-code XXXX-XXXX)',
  options: OWNER_AND_DEVICE,
  async run(context) {
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const { devices } = store;
    // One request id for the command: a claim and the decision after it correlate.
    const by = byOperator();
    const device = await targetDevice(devices, owner.id, context, by);
    await devices.deny(owner.id, device.id, by);
    context.out(
      `denied ${device.id} ${JSON.stringify(device.name)} of ${owner.email}: its key stays refused.`,
    );
  },
};

const deviceRevoke: Command = {
  name: 'device revoke',
  usage: '--owner E --id dev_…',
  options: { owner: { type: 'string' }, id: { type: 'string' } },
  async run(context) {
    const id = requireString(context, 'id');
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const device = await store.devices.revoke(owner.id, id, byOperator());
    context.out(
      `revoked ${device.id} ${JSON.stringify(device.name)} of ${owner.email}: its tokens no longer work, for good.`,
    );
  },
};

export const deviceCommands: Command[] = [deviceList, deviceApprove, deviceDeny, deviceRevoke];
