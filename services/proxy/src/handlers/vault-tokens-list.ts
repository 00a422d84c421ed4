/**
 * proxy.vault-tokens.list (GET /api/v1/vault/tokens): the caller's stored credentials, described
 * (service, label, kind, scopes, times), never their values. Needs `services:read` (route table,
 * re-checked by serveEndpoints): metadata only, but it tells which services hold credentials.
 */
import { ProxyEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

export const vaultTokensList = handle(
  ProxyEndpoints.vaultTokensList,
  async (caller, _input, { store }: ProxyHandlerDeps) => ({
    tokens: await store.listTokens(caller.accountId),
  }),
);
