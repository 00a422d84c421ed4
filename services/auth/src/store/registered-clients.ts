/**
 * The clients that registered themselves (RFC 7591), for operators (`pag client list`) and the
 * owner's dashboards. Static clients (the resource servers of INTROSPECTION_CLIENTS) live in
 * config, not here.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface RegisteredClient {
  clientId: string;
  clientName: string | undefined;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: string;
  registeredAt: Date;
}

interface ClientMetadata {
  client_id?: unknown;
  client_name?: unknown;
  redirect_uris?: unknown;
  grant_types?: unknown;
  token_endpoint_auth_method?: unknown;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

export async function listRegisteredClients(prisma: PrismaClient): Promise<RegisteredClient[]> {
  const rows = await prisma.oidcPayload.findMany({
    where: { model: 'Client' },
    orderBy: { createdAt: 'asc' },
    select: { payload: true, createdAt: true },
  });
  return rows.map(({ payload, createdAt }) => {
    const metadata = (payload ?? {}) as ClientMetadata;
    return {
      clientId: String(metadata.client_id),
      clientName: typeof metadata.client_name === 'string' ? metadata.client_name : undefined,
      redirectUris: strings(metadata.redirect_uris),
      grantTypes: strings(metadata.grant_types),
      tokenEndpointAuthMethod: String(metadata.token_endpoint_auth_method ?? 'none'),
      registeredAt: createdAt,
    };
  });
}
