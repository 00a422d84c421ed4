/**
 * Connected services, until owners connect them through an OAuth flow of their own:
 * - `pag connection add --owner E --service NAME --label TEXT [--scopes "s1 s2"]`: connects a
 *   service of the proxy's catalogue for that owner with an API key or personal access token read
 *   from standard input (never from the command line, where other users of the machine could see
 *   it in the process list), stored encrypted in the proxy's vault; the same label again replaces it;
 * - `pag connection list --owner E`: the owner's connected services and stored credentials
 *   (described; no value is ever printed).
 */
import { openProxyStore } from '@pag/proxy';
import type { Command, CommandContext } from '../command.ts';
import { CliError, requireString, scopesOption } from '../command.ts';
import { ownerAccount } from './agent.ts';

async function owner(context: CommandContext) {
  await using store = await context.openAuth();
  return ownerAccount(store, context);
}

const connectionAdd: Command = {
  name: 'connection add',
  usage: '--owner E --service NAME --label TEXT [--scopes "s1 s2"]   (the key on standard input)',
  options: {
    owner: { type: 'string' },
    service: { type: 'string' },
    label: { type: 'string' },
    scopes: { type: 'string' },
  },
  async run(context) {
    const service = requireString(context, 'service');
    const label = requireString(context, 'label');
    const account = await owner(context);
    // One line: a trailing newline (echo, a file) is not part of the key.
    const value = (await context.readInput()).replace(/\r?\n$/, '');
    if (value === '') throw new CliError('the key is read from standard input, which was empty');
    await using store = openProxyStore({
      databaseUrl: context.databaseUrl,
      keyRing: await context.vaultKeys(),
      logger: context.logger,
    });
    const stored = await store.storeApiKeyConnection({
      accountId: account.id,
      service,
      label,
      value,
      scopes: scopesOption(context) ?? [],
    });
    context.out(
      `connected ${stored.service.displayName} (${stored.service.name}) for ${account.email}: credential ${stored.token.id} "${stored.token.label}", stored encrypted`,
    );
  },
};

const connectionList: Command = {
  name: 'connection list',
  usage: '--owner E',
  options: { owner: { type: 'string' } },
  async run(context) {
    const account = await owner(context);
    await using store = openProxyStore({
      databaseUrl: context.databaseUrl,
      keyRing: await context.vaultKeys(),
      logger: context.logger,
    });
    const [services, tokens] = await Promise.all([
      store.listConnections(account.id),
      store.listTokens(account.id),
    ]);
    if (services.length === 0) context.out(`${account.email} has no connected service`);
    for (const service of services) {
      context.out(`${service.name}\t${service.status}\tconnected ${service.connectedAt}`);
      for (const token of tokens.filter((t) => t.service === service.name)) {
        context.out(
          `  ${token.id}\t"${token.label}"\t${token.kind}\tlast used ${token.lastUsedAt ?? 'never'}`,
        );
      }
    }
  },
};

export const connectionCommands: readonly Command[] = [connectionAdd, connectionList];
