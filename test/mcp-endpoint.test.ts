/**
 * The MCP endpoint as an MCP host meets it, with the official SDK's client on the embedded stack:
 * given only the base URL, or /mcp, it finds the metadata from the 401, asks for the scopes the
 * challenge names (not every scope), the owner consents, and the tools work: context, memory
 * written and deleted. A tool call beyond the token's scopes is a 403 step-up challenge naming the
 * scope; a limited token's tool calls count as its API requests and the one over the limit is a
 * tool error with 429's code and wait, as over HTTP; each tool call is one audit row of its route.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditRecord } from '@pag/contracts';
import { GatewayContext, MCP_CHALLENGE_SCOPES } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { Browser, signUp, startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { consentAs, MemoryProvider } from './support/mcp-oauth.ts';

const OWNER = { email: 'mcp-tools@example.test', password: 'a long pass phrase for mcp' };
const TOOLS = [
  'get_context',
  'get_capabilities',
  'write_memory',
  'delete_memory',
  'search_knowledge',
  'list_personas',
  'get_identity',
  'chat',
  'list_services',
  'call_service_read',
  'call_service_write',
  'list_triggers',
  'create_trigger',
  'run_trigger',
];

let stack: StackProcess;
let pag: ReturnType<typeof pagCommand>;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startStackProcess();
  pag = pagCommand(() => stack.dataDir);
  await signUp(new Browser(stack.url), OWNER);
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await stack?.stop();
});

/** An MCP client of `serverUrl` through OAuth, as a host runs it: 401, consent, the code, again. */
async function connectWithOAuth(serverUrl: string) {
  const provider = new MemoryProvider();
  const first = new Client({ name: 'test host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  await expect(first.connect(transport)).rejects.toThrow(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl as URL;
  const { code } = await consentAs(stack.url, OWNER, authorizationUrl);
  await transport.finishAuth(code);
  const client = new Client({ name: 'test host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  clients.push(client);
  return { client, provider, authorizationUrl, token: provider.saved?.access_token as string };
}

/** An MCP client with a token the owner made (no OAuth). */
async function connectWithToken(token: string) {
  const client = new Client({ name: 'test agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const [first] = (result as CallToolResult).content;
  if (first?.type !== 'text') throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return first.text;
}

async function auditRows(): Promise<AuditRecord[]> {
  const listed = await pag('audit', 'list', '--owner', OWNER.email, '--limit', '1000', '--json');
  expect(listed.code).toBe(0);
  return listed.out.map((line) => JSON.parse(line) as AuditRecord);
}

describe('an MCP host given only the base URL', () => {
  test('finds the metadata, asks for the challenge’s scopes, and its tools answer', async () => {
    const unauthorized = await fetch(`${stack.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${stack.url}/.well-known/oauth-protected-resource", scope="${MCP_CHALLENGE_SCOPES.join(' ')}"`,
    );
    const metadata = (await (await fetch(`${stack.url}/.well-known/oauth-protected-resource`)).json()) as {
      resource: string;
    };
    expect(metadata.resource).toBe(`${stack.url}/`);

    const { client, authorizationUrl } = await connectWithOAuth(`${stack.url}/`);
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${stack.url}/`);
    expect(authorizationUrl.searchParams.get('scope')).toBe(MCP_CHALLENGE_SCOPES.join(' '));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) expect(tool.description).toContain('explicit human approval');

    const context = GatewayContext.parse(JSON.parse(textOf(await client.callTool({ name: 'get_context' }))));
    expect(context.persona?.soul_content).toBeTruthy();
    const capabilities = JSON.parse(textOf(await client.callTool({ name: 'get_capabilities' }))) as {
      scopes: string[];
    };
    expect(capabilities.scopes).toEqual([...MCP_CHALLENGE_SCOPES]);
  });
});

describe('an MCP host given /mcp', () => {
  let client: Client;
  let token: string;
  beforeAll(async () => {
    ({ client, token } = await connectWithOAuth(`${stack.url}/mcp`));
  }, 60_000);

  test('writes a memory note, sees it in the context, and deletes it', async () => {
    const written = await client.callTool({ name: 'write_memory', arguments: { content: 'Prefers tea.' } });
    expect(written.isError).toBeFalsy();
    const entry = JSON.parse(textOf(written)) as { id: string; content: string };
    expect(entry.content).toBe('Prefers tea.');
    const context = GatewayContext.parse(JSON.parse(textOf(await client.callTool({ name: 'get_context' }))));
    expect(context.memory?.map((note) => note.id)).toContain(entry.id);

    const deleted = await client.callTool({ name: 'delete_memory', arguments: { id: entry.id } });
    expect(deleted.isError).toBeFalsy();
    const again = await client.callTool({ name: 'delete_memory', arguments: { id: entry.id } });
    expect(again.isError).toBe(true);
    expect(JSON.parse(textOf(again))).toMatchObject({ status: 404, error: { code: 'NOT_FOUND' } });
  });

  test('a call beyond the token’s scopes is a 403 step-up challenge naming the scope', async () => {
    const response = await fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'call_service_read', arguments: { service: 'github', path: 'user/repos' } },
      }),
    });
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`resource_metadata="${stack.url}/.well-known/oauth-protected-resource/mcp"`);
    const scope = /scope="([^"]*)"/.exec(challenge)?.[1]?.split(' ') ?? [];
    expect(scope).toEqual([...MCP_CHALLENGE_SCOPES, 'services:github:user:read']);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INSUFFICIENT_SCOPE');
  });

  test('GET /mcp is 405: the endpoint opens no server-initiated stream', async () => {
    const response = await fetch(`${stack.url}/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('a limited token', () => {
  test('its tool calls count as requests; the one over the limit is 429 as over HTTP, one audit row each', async () => {
    const made = await pag(
      ...['token', 'create', '--owner', OWNER.email, '--name', 'mcp-limited', '--scopes', 'read'],
      ...['--daily', '3'],
    );
    expect(made.code).toBe(0);
    const token = made.out.at(-1) ?? '';
    const client = await connectWithToken(token);
    await client.listTools();

    for (let call = 1; call <= 3; call += 1) {
      const result = await client.callTool({ name: 'get_capabilities' });
      expect(result.isError).toBeFalsy();
    }
    const over = await client.callTool({ name: 'get_capabilities' });
    expect(over.isError).toBe(true);
    const refusal = JSON.parse(textOf(over)) as {
      status: number;
      retryAfter: number;
      error: { code: string };
    };
    expect(refusal).toMatchObject({ status: 429, error: { code: 'USAGE_LIMIT_EXCEEDED' } });
    expect(refusal.retryAfter).toBeGreaterThan(0);
    const overHttp = await fetch(`${stack.url}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(overHttp.status).toBe(429);
    expect(((await overHttp.json()) as { error: { code: string } }).error.code).toBe('USAGE_LIMIT_EXCEEDED');

    const agentId = (await auditRows()).find(
      (row) => row.kind === 'request' && row.path === '/api/v1/tokens/me/capabilities' && row.status === 429,
    )?.agentId;
    expect(agentId).toBeTruthy();
    const rows = (await auditRows()).filter((row) => row.kind === 'request' && row.agentId === agentId);
    const capabilityRows = rows.filter((row) => row.path === '/api/v1/tokens/me/capabilities');
    // Four tool calls and one HTTP request: one row each, with their statuses.
    expect(capabilityRows.map((row) => row.status).sort()).toEqual([200, 200, 200, 429, 429]);
    // The MCP requests themselves (initialize, the notification, tools/list, four calls) are audited too.
    expect(rows.filter((row) => row.path === '/mcp').length).toBeGreaterThanOrEqual(6);
  });
});
