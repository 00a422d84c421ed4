/**
 * Step 5: the connector and the caller's credential for it (calls/connection.ts, shared with the
 * brain's proxy.calls.forward; an OAuth token about to expire is refreshed there): an unknown
 * name is 404, a connector not connected (or needing a reconnect) 409. A declared
 * body over BODY_LIMIT_BYTES is refused here, before anything is decrypted or sent. A credential
 * used within the last seconds comes from memory (calls/credential-cache.ts), not the database;
 * an OAuth credential is kept there only until its refresh is due, so the refresh still runs.
 */
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { connectorNamed, credentialOf } from '../calls/connection.ts';
import type { CredentialCache } from '../calls/credential-cache.ts';
import type { TokenRefresher } from '../calls/token-refresh.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { state } from './state.ts';

export interface FindConnectionOptions {
  /** The connectors of the caller's account: an owner's own are seen by that owner only. */
  connectors: ConnectorRegistry;
  store: VaultStore;
  refresher: TokenRefresher;
  credentials: CredentialCache;
  bodyLimitBytes: number;
}

export function findConnection(options: FindConnectionOptions): RequestHandler {
  const lookUp = async (req: Request, res: Response): Promise<void> => {
    const current = state(res);
    const accountId = current.identity?.accountId ?? '';
    const connectors = await options.connectors.forAccount(accountId);
    const connector = connectorNamed(connectors, current.params?.service ?? '');
    current.connector = connector;
    const declared = Number(req.get('content-length') ?? 0);
    if (declared > options.bodyLimitBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request body exceeds the limit of ${options.bodyLimitBytes} bytes.`,
      );
    }
    current.credential = await options.credentials.get(accountId, connector.name, () =>
      credentialOf(options, accountId, connector, current.requestId),
    );
  };
  return (req: Request, res: Response, next: NextFunction) => {
    lookUp(req, res).then(() => next(), next);
  };
}
