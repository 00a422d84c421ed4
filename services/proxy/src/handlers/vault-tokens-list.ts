/**
 * proxy.vault-tokens.list (GET /api/v1/vault/tokens): the caller's stored credentials, described
 * (service, label, kind, scopes, times), never their values. Needs `services:read` (route table):
 * metadata only, but it tells which services hold credentials.
 */
import type { VaultTokenList } from '@pag/contracts';
import { ProxySubjects } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import { callerOf, requireScope } from './caller.ts';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export function serveVaultTokensList({ bus, store }: BusApiDeps): Promise<Subscription> {
  return bus.handle(
    ProxySubjects.vaultTokensList,
    async (msg: BusMessage<unknown>): Promise<VaultTokenList> => {
      const caller = callerOf(msg);
      requireScope(caller, 'services:read');
      return { tokens: await store.listTokens(caller.accountId) };
    },
    QUEUE,
  );
}
