/**
 * The RFC 7523 JWT bearer grant for Ed25519 devices, at oidc-provider's own token endpoint:
 *
 *   POST /oauth/token  grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
 *                      &assertion=<JWS EdDSA, see device-assertion.ts>&client_id=<device id>
 *
 * An approved device is an OAuth client (id = device id, auth method none, this grant only) with an
 * agent; the handler checks the assertion and answers with a one-hour access token of the agent
 * (AgentStore.issueToken), no refresh token: the device asserts again.
 *
 * Every other device has no client record, so oidc-provider refuses the request with
 * invalid_client before any grant handler runs (client_auth.js looks the client up first). The
 * middleware below then says why, but only to whoever holds the key (the assertion must verify,
 * and its jti is used up like any other):
 * - pending (claimed or not): 403 `device_pending_approval` (our DEVICE_PENDING_APPROVAL), with
 *   `interval` and Retry-After (DEVICE_POLL_INTERVAL_SECONDS): when to sign the next assertion;
 * - denied: 400 invalid_grant;
 * - revoked: 401 invalid_client, final: the client is gone and nothing the device sends makes it
 *   again; the key cannot register again either.
 * An unknown device id keeps oidc-provider's invalid_client.
 */

import { DEVICE_POLL_INTERVAL_SECONDS } from '@pag/contracts';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { OAUTH_ROUTES } from '../provider/routes.ts';
import type { AgentStore } from '../store/agent-store.ts';
import type { DeviceAssertions } from '../store/device-assertions.ts';
import type { DeviceRecord } from '../store/device-record.ts';
import { invalidGrant, JWT_BEARER, verifyDeviceAssertion } from './device-assertion.ts';
import { deviceStatus } from './device-status.ts';

export { JWT_BEARER } from './device-assertion.ts';

export interface DeviceGrantDeps {
  assertions: DeviceAssertions;
  agents: AgentStore;
}

/** A device's access tokens live an hour; it signs a new assertion for the next. */
export const DEVICE_TOKEN_SECONDS = 3600;

/** The OAuth error of a device waiting for its owner (DEVICE_PENDING_APPROVAL, 403). */
export class DevicePendingApproval extends errors.OIDCProviderError {
  constructor(claimed: boolean) {
    super(403, 'device_pending_approval');
    this.error_description = claimed
      ? 'the owner claimed this device and has not approved it yet; try again later'
      : 'this device awaits its owner: show them your user code or claim URL, then try again once approved';
  }
}

function revoked(): errors.InvalidClientAuth {
  const error = new errors.InvalidClientAuth();
  error.error_description = 'this device was revoked by its owner; revocation is final';
  return error;
}

/** Why this device may not have a token now; null when it may. */
export function deviceRefusal(device: DeviceRecord): errors.OIDCProviderError | null {
  switch (deviceStatus(device)) {
    case 'approved':
      return null;
    case 'pending':
      return new DevicePendingApproval(device.accountId !== null);
    case 'denied':
      return invalidGrant('the owner denied this device; register a new key to ask again');
    case 'revoked':
      return revoked();
  }
}

export function registerDeviceGrant(provider: Provider, deps: DeviceGrantDeps): void {
  const { assertions, agents } = deps;
  const audiences = [`${provider.issuer}${OAUTH_ROUTES.token}`, provider.issuer];
  const check = (deviceId: string, assertion: unknown) =>
    verifyDeviceAssertion(assertions, { deviceId, assertion, audiences });
  // Requests whose assertion the grant handler checked (its jti is used up): never checked twice.
  const checked = new WeakSet<object>();

  provider.registerGrantType<{ assertion?: string }>(
    JWT_BEARER,
    async (ctx) => {
      checked.add(ctx);
      const device = await check(ctx.oidc.client.clientId, ctx.oidc.params.assertion);
      // Only device clients are allowed this grant; a client without a device is a bug, not the caller's.
      if (device === null)
        throw new Error(`client ${ctx.oidc.client.clientId} has the device grant but no device`);
      const refusal = deviceRefusal(device);
      if (refusal !== null) throw refusal;
      const agent = device.agentId === null ? null : await agents.findById(device.agentId);
      if (agent === null || agent.status !== 'active') throw revoked();
      const token = await agents.issueToken(agent, { maxLifetimeSeconds: DEVICE_TOKEN_SECONDS });
      ctx.body = {
        access_token: token.value,
        token_type: 'Bearer',
        expires_in: Math.max(0, Math.round((token.expiresAt.getTime() - Date.now()) / 1000)),
        scope: agent.scopes.join(' '),
      };
    },
    ['assertion'],
  );

  provider.use(async (ctx, next) => {
    await next();
    await explainRefusal(ctx);
    // Either path (the grant handler's refusal, rendered by oidc-provider, or the one above) ends
    // here: a waiting device is told when to ask again.
    const answer = ctx.body as { error?: unknown } | undefined;
    if (ctx.status === 403 && answer?.error === 'device_pending_approval') {
      ctx.body = { ...answer, interval: DEVICE_POLL_INTERVAL_SECONDS };
      ctx.set('Retry-After', String(DEVICE_POLL_INTERVAL_SECONDS));
    }
  });

  /** A device without a client record: say why it may not have a token, to the key's holder only. */
  async function explainRefusal(ctx: Parameters<Parameters<Provider['use']>[0]>[0]): Promise<void> {
    const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
    const params = oidc?.params as Record<string, unknown> | undefined;
    const body = ctx.body as { error?: unknown } | undefined;
    if (oidc?.route !== 'token' || params?.grant_type !== JWT_BEARER || checked.has(ctx)) return;
    if (ctx.status !== 401 || body?.error !== 'invalid_client' || typeof params.client_id !== 'string')
      return;
    let refusal: errors.OIDCProviderError | null;
    try {
      const device = await check(params.client_id, params.assertion);
      refusal = device === null ? null : deviceRefusal(device);
    } catch (error) {
      if (!(error instanceof errors.OIDCProviderError)) throw error;
      refusal = error;
    }
    if (refusal === null) return;
    ctx.status = refusal.statusCode;
    ctx.body = { error: refusal.error, error_description: refusal.error_description };
  }
}
