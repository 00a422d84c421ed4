/**
 * The audit service's answers on the bus (AuditEndpoints), one handler file each, served by kit's
 * serveEndpoints: audit.records.list, the owner's read side.
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import type { AuditHandlerDeps } from './handlers/audit-deps.ts';
import { recordsList } from './handlers/records-list.ts';

export const auditEndpoints: readonly EndpointHandler<AnyEndpoint, AuditHandlerDeps>[] = [recordsList];
