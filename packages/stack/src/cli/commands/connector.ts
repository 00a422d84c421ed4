/**
 * An owner's own OAuth clients and generic OAuth 2.0 connectors (docs/adr/0068), beside what the
 * owner enters on /dashboard/services:
 * - `pag connector client set --owner E --connector N --client-id ID`: the owner's own client for
 *   connector N of the catalogue (it beats the deployment's CONNECTOR_CLIENTS, for this owner
 *   only); the secret is read from standard input, never from the command line;
 * - `pag connector client remove --owner E --connector N`;
 * - `pag connector custom set --owner E --file def.json`: the owner's own connector, the JSON of
 *   the dashboard's form (name, displayName, authorizationUrl, tokenUrl, revocationUrl, apiBaseUrl,
 *   scopes, clientAuth, pkce, clientId, clientSecret; an omitted secret keeps the stored one);
 * - `pag connector custom list --owner E`: the owner's clients and connectors (no secret printed);
 * - `pag connector custom remove --owner E --connector N`: revoked where the provider offers it,
 *   then deleted with its connection and tokens.
 * Every URL must be https and resolve to public addresses (CONNECTOR_ALLOW_LOOPBACK=true lets
 * loopback use http, for tests).
 */
import { readFile } from 'node:fs/promises';
import { openProxyStore } from '@pag/proxy';
import type { Command, CommandContext } from '../command.ts';
import { CliError, requireString } from '../command.ts';
import { ownerAccount } from './agent.ts';

async function owner(context: CommandContext) {
  await using store = await context.openAuth();
  return ownerAccount(store, context);
}

async function proxyStore(context: CommandContext) {
  return openProxyStore({
    databaseUrl: context.databaseUrl,
    keyRing: await context.vaultKeys(),
    logger: context.logger,
    allowLoopback: context.env.CONNECTOR_ALLOW_LOOPBACK === 'true',
  });
}

const clientSet: Command = {
  name: 'connector client set',
  usage: '--owner E --connector N --client-id ID   (the client secret on standard input)',
  options: { owner: { type: 'string' }, connector: { type: 'string' }, 'client-id': { type: 'string' } },
  async run(context) {
    const service = requireString(context, 'connector');
    const clientId = requireString(context, 'client-id');
    const account = await owner(context);
    const clientSecret = (await context.readInput()).replace(/\r?\n$/, '');
    if (clientSecret === '')
      throw new CliError('the client secret is read from standard input, which was empty');
    await using store = await proxyStore(context);
    const done = await store.setOwnerClient(account.id, service, { clientId, clientSecret });
    context.out(
      `${account.email} connects ${done.displayName} (${done.service}) with client ${clientId}; secret stored encrypted`,
    );
  },
};

const clientRemove: Command = {
  name: 'connector client remove',
  usage: '--owner E --connector N',
  options: { owner: { type: 'string' }, connector: { type: 'string' } },
  async run(context) {
    const service = requireString(context, 'connector');
    const account = await owner(context);
    await using store = await proxyStore(context);
    const done = await store.removeOwnerClient(account.id, service);
    context.out(`removed ${account.email}'s own client for ${done.displayName} (${done.service})`);
  },
};

const customSet: Command = {
  name: 'connector custom set',
  usage: '--owner E --file def.json',
  options: { owner: { type: 'string' }, file: { type: 'string' } },
  async run(context) {
    const file = requireString(context, 'file');
    let definition: unknown;
    try {
      definition = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new CliError(`${file}: not a readable JSON file (${(error as Error).message})`);
    }
    const account = await owner(context);
    await using store = await proxyStore(context);
    const done = await store.setOwnerConnector(
      account.id,
      definition as Parameters<typeof store.setOwnerConnector>[1],
    );
    context.out(
      `saved ${account.email}'s connector ${done.displayName} (${done.service}); connect it on /dashboard/services`,
    );
  },
};

const customList: Command = {
  name: 'connector custom list',
  usage: '--owner E',
  options: { owner: { type: 'string' } },
  async run(context) {
    const account = await owner(context);
    await using store = await proxyStore(context);
    const { clients, connectors } = await store.ownerSettings(account.id);
    if (clients.length === 0 && connectors.length === 0)
      context.out(`${account.email} has no client or connector of their own`);
    for (const client of clients) context.out(`client\t${client.service}\t${client.clientId}\tsecret set`);
    for (const connector of connectors) {
      context.out(
        `connector\t${connector.name}\t"${connector.displayName}"\t${connector.apiBaseUrl}\tclient ${connector.clientId}`,
      );
    }
  },
};

const customRemove: Command = {
  name: 'connector custom remove',
  usage: '--owner E --connector N',
  options: { owner: { type: 'string' }, connector: { type: 'string' } },
  async run(context) {
    const service = requireString(context, 'connector');
    const account = await owner(context);
    await using store = await proxyStore(context);
    const done = await store.removeOwnerConnector(account.id, service);
    context.out(
      `deleted ${account.email}'s connector ${done.displayName} (${done.service})${done.revoked ? ', access revoked at the provider' : ''}`,
    );
  },
};

export const connectorCommands: readonly Command[] = [
  clientSet,
  clientRemove,
  customSet,
  customList,
  customRemove,
];
