/**
 * `pag client list [--json]`: the clients registered through dynamic registration (RFC 7591).
 */
import type { Command } from '../command.ts';

export const clientList: Command = {
  name: 'client list',
  usage: '[--json]',
  options: { json: { type: 'boolean' } },
  async run(context) {
    await using store = await context.openAuth();
    const clients = await store.listClients();
    if (context.values.json === true) {
      context.out(JSON.stringify(clients, null, 2));
      return;
    }
    if (clients.length === 0) {
      context.out('no registered clients');
      return;
    }
    for (const client of clients) {
      const redirectHosts = [...new Set(client.redirectUris.map((uri) => URL.parse(uri)?.host ?? uri))];
      context.out(
        [
          client.clientId,
          JSON.stringify(client.clientName ?? '(no name)'),
          `registered ${client.registeredAt.toISOString()}`,
          `redirects to ${redirectHosts.join(', ') || '(none)'}`,
          `grants ${client.grantTypes.join(', ')}`,
        ].join('  '),
      );
    }
  },
};
