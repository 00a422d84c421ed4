/** What the proxy's bus handlers need, built once by service.ts. */
import type { CallAudit } from '../calls/audit-call.ts';
import type { TokenRefresher } from '../calls/token-refresh.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { ConnectStore } from '../store/connect-store.ts';
import type { ServiceListCache } from '../store/service-list-cache.ts';
import type { VaultStore } from '../store/vault-store.ts';

export interface ProxyHandlerDeps {
  store: VaultStore;
  /** The connectors each account sees (catalogue, deployment's, the owner's own). */
  connectors: ConnectorRegistry;
  /** CONNECTOR_ALLOW_LOOPBACK: owners' connector URLs may be http on loopback (tests). */
  allowLoopback: boolean;
  /** Each account's connected services in memory, never older than an announced change. */
  serviceLists: ServiceListCache;
  /** The connect flow's state and the OAuth tokens (connect, refresh, disconnect). */
  connect: ConnectStore;
  refresher: TokenRefresher;
  /** How long a connect attempt's state stays valid. */
  connectStateTtlMs: number;
  /** For proxy.calls.forward: the audit of each call, UPSTREAM_TIMEOUT_MS, BODY_LIMIT_BYTES, PROXY_MAX_RESPONSE_BYTES. */
  calls: { audit: CallAudit; timeoutMs: number; bodyLimitBytes: number; maxResponseBytes: number };
}
