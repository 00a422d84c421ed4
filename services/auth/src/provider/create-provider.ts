/**
 * The oidc-provider instance: issuer = PUBLIC_URL, behind a proxy (the gateway), with our
 * discovery additions, a script policy on its answers (script-policy.ts), loopback redirect URIs
 * matched with any port (loopback-redirects.ts) and its events logged.
 * Protocol failures are oidc-provider's own errors; 5xx details go to the log, never to the client.
 */
import type { Logger } from '@pag/kit';
import type { Configuration } from 'oidc-provider';
import Provider from 'oidc-provider';
import { serverMetadataExtensions } from '../discovery/server-metadata.ts';
import { answerAppErrorsAsOAuth } from './app-errors.ts';
import { admitLoopbackPorts } from './loopback-redirects.ts';
import { scriptPolicy } from './script-policy.ts';

export function createProvider(issuer: string, configuration: Configuration, logger: Logger): Provider {
  const provider = new Provider(issuer, configuration);
  // X-Forwarded-* come from the gateway alone (service.ts pins host and proto to PUBLIC_URL).
  provider.proxy = true;
  answerAppErrorsAsOAuth(provider);
  admitLoopbackPorts(provider);
  provider.use(scriptPolicy);
  provider.use(serverMetadataExtensions(issuer));
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'oidc-provider server error'));
  provider.on('grant.revoked', (_ctx, grantId) => logger.info({ grantId }, 'grant revoked'));
  provider.on('registration_create.success', (_ctx, client) =>
    logger.info({ clientId: client.clientId, clientName: client.clientName }, 'client registered'),
  );
  const refused = (event: string) => (_ctx: unknown, error: Error & { status?: number }) =>
    logger.info({ event, error: error.message, status: error.status }, 'request refused');
  provider.on('grant.error', refused('grant.error'));
  provider.on('introspection.error', refused('introspection.error'));
  provider.on('revocation.error', refused('revocation.error'));
  provider.on('registration_create.error', refused('registration_create.error'));
  return provider;
}
