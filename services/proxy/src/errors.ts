/**
 * The proxy's own errors. Its error handler is the kit's (http/app.ts): everything thrown in the
 * pipeline becomes the contracts' error body with the error's headers, never a stack trace.
 */
import { AppError } from '@pag/contracts';
import type { ConnectorDefinition } from './connectors/catalogue.ts';

/**
 * The connector exists but this account cannot call it: never connected, or its connection
 * expired or failed (409 SERVICE_NOT_CONNECTED, apart from an unknown service: 404 NOT_FOUND).
 */
export function notConnected(
  connector: ConnectorDefinition,
  connection: 'missing' | 'expired' | 'error' | 'needs_reconnect',
): AppError {
  const reason =
    connection === 'missing'
      ? `${connector.displayName} is not connected to this account.`
      : connection === 'needs_reconnect'
        ? `${connector.displayName} refused to renew this account's connection.`
        : `The ${connector.displayName} connection of this account has ${connection === 'expired' ? 'expired' : 'failed'}.`;
  return new AppError('SERVICE_NOT_CONNECTED', reason, {
    hint: `The owner must ${connection === 'missing' ? 'connect' : 'reconnect'} ${connector.displayName} (${connector.name}) before agents can call it (on /dashboard/services); GET /api/v1/services lists the connected services and their health.`,
  });
}
