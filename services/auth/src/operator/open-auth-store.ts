/**
 * The auth service's data for operator commands (`pnpm pag …`): the same composition root as the
 * running service (core.ts: every store, oidc-provider's models on the same adapter and keys),
 * without an HTTP listener. Its events (revocations, handshake and device decisions) go through
 * the database to the running service, which publishes them on its bus (store/event-relay.ts).
 */
import type { Logger } from '@pag/kit';
import type { AuthConfig } from '../config.ts';
import type { AuthCore } from '../core.ts';
import { createAuthCore } from '../core.ts';
import type { AuthEvents } from '../events/auth-events.ts';

export type AuthStore = AuthCore;

export interface OpenAuthStoreOptions {
  config: AuthConfig;
  /** PUBLIC_URL of the deployment the data belongs to (the issuer, the tokens' audience). */
  publicUrl: string;
  logger: Logger;
  /** Where the events go; default: through the database to the running services. */
  events?: AuthEvents;
}

export function openAuthStore(options: OpenAuthStoreOptions): Promise<AuthStore> {
  return createAuthCore({
    config: options.config,
    publicUrl: options.publicUrl,
    events: options.events ?? 'through-database',
    logger: options.logger,
  });
}
