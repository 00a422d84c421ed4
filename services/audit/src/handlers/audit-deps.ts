/** What the audit service's handlers need, built once by service.ts. */
import type { AuditStores } from '../store/audit-stores.ts';

export interface AuditHandlerDeps {
  stores: AuditStores;
}
