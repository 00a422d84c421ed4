/**
 * Step 5: the connector and the caller's credential for it. A name outside the catalogue is 404
 * NOT_FOUND (GET /api/v1/connectors lists the catalogue); a connector this account has not
 * connected, or whose connection expired or failed, tells the agent that the owner must connect
 * it (notConnected, errors.ts). A declared body over BODY_LIMIT_BYTES is refused here, before
 * anything is decrypted or sent.
 */
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { notConnected } from '../errors.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { state } from './state.ts';

export interface FindConnectionOptions {
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  store: VaultStore;
  bodyLimitBytes: number;
}

export function findConnection(options: FindConnectionOptions): RequestHandler {
  const lookUp = async (req: Request, res: Response): Promise<void> => {
    const current = state(res);
    const name = current.params?.service ?? '';
    const connector = options.connectors.get(name);
    if (connector === undefined) {
      throw new AppError('NOT_FOUND', `No connector is named ${name}.`, {
        hint: 'GET /api/v1/connectors lists the services an owner can connect.',
      });
    }
    current.connector = connector;
    const declared = Number(req.get('content-length') ?? 0);
    if (declared > options.bodyLimitBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request body exceeds the limit of ${options.bodyLimitBytes} bytes.`,
      );
    }
    const accountId = current.identity?.accountId ?? '';
    const found = await options.store.credentialFor(accountId, connector.name);
    if (found.state !== 'connected') throw notConnected(connector, found.state);
    current.credential = { tokenId: found.tokenId, value: found.value };
  };
  return (req: Request, res: Response, next: NextFunction) => {
    lookUp(req, res).then(() => next(), next);
  };
}
