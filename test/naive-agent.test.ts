/**
 * A naive agent: it knows only the base URL, uses neither @pag/sdk nor @pag/contracts, and
 * follows what the gateway serves (GET /, /llms.txt, /auth.md, the protected-resource and
 * authorization-server metadata) to a working token by each way in: (a) the handshake with pickup,
 * (b) OAuth through the MCP SDK's `auth()` given only the base URL, (c) an Ed25519 device key
 * (node:crypto). With each token it loads the context and writes a memory note. Every fact the
 * script uses is read from a document (a regular expression over its text or a field of its JSON),
 * so a document that stops saying it fails here; the owner's part is played with `pag`, as an
 * operator beside the stack would (the stories do the same on the dashboard).
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { consentAs, MemoryProvider } from './support/mcp-oauth.ts';

const OWNER = { email: 'naive-owner@example.test', password: 'naive owner long password' };

let stack: StackProcess;
let base: string;

const pag = async (...argv: string[]) => {
  const { code, out, err } = await pagCommand(() => stack.dataDir)(...argv);
  if (code !== 0) throw new Error(`pag ${argv.join(' ')}: ${[...out, ...err].join('\n')}`);
  return out;
};

beforeAll(async () => {
  stack = await startStackProcess();
  base = stack.url;
  await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

/** The first capture of `pattern` in `text`; fails naming what the document did not say. */
function said(text: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(text)?.[1];
  if (found === undefined) throw new Error(`the document does not say ${what} (${pattern})`);
  return found;
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What the agent reads first: the index at the base URL, and the llms.txt it points to. */
async function readGuide(): Promise<string> {
  const index = (await (await fetch(`${base}/`)).json()) as { documentation: { llms: string } };
  const llms = await fetch(new URL(index.documentation.llms, `${base}/`));
  expect(llms.status).toBe(200);
  return llms.text();
}

/** A JSON template from a document, its `<placeholders>` filled by `fill` (keyed by field name). */
function fillTemplate(template: string, fill: Record<string, unknown>): Record<string, unknown> {
  const body = JSON.parse(template) as Record<string, unknown>;
  for (const [field, value] of Object.entries(body))
    if (typeof value === 'string' && /^<.+>$/.test(value)) {
      if (!(field in fill)) throw new Error(`no value for the placeholder of ${field}`);
      body[field] = fill[field];
    }
  return body;
}

/** With a token: the context as llms.txt says to load first, then a note written as it says. */
async function useToken(guide: string, token: string, note: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const contextUrl = said(
    guide,
    new RegExp(`GET (${literal(base)}\\S*/gateway/context) first`),
    'where the context is',
  );
  const context = await fetch(contextUrl, { headers });
  expect(context.status).toBe(200);
  expect(await context.json()).toMatchObject({ user: expect.any(Object), memory: expect.any(Array) });

  const memoryUrl = said(
    guide,
    new RegExp(`POST (${literal(base)}\\S*/memory) with`),
    'where memory is written',
  );
  const template = said(
    guide,
    new RegExp(`POST ${literal(memoryUrl)} with \`(\\{[^\`]+\\})\``),
    'the memory body',
  );
  const written = await fetch(memoryUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify(fillTemplate(template, { content: note })),
  });
  expect(written.status).toBe(201);
  const after = (await (await fetch(contextUrl, { headers })).json()) as { memory: { content: string }[] };
  expect(after.memory.map((entry) => entry.content)).toContain(note);
}

describe('a naive agent with nothing but the base URL', () => {
  test('(a) the handshake with pickup, as llms.txt tells it', async () => {
    const guide = await readGuide();
    const createUrl = said(guide, new RegExp(`POST (${literal(base)}\\S*/handshakes) with`), 'where to ask');
    const template = said(guide, /\/handshakes with\s+`(\{[^`]+\})`/, 'the handshake body');
    // The proof as the guide describes it: a secret verifier and BASE64URL(SHA-256(verifier)).
    expect(guide).toContain('openssl dgst -sha256 -binary');
    const verifier = randomBytes(32).toString('hex');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const created = await fetch(createUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        fillTemplate(template, {
          agentId: 'naive-agent@test',
          message: 'A naive agent that read llms.txt.',
          codeChallenge: challenge,
        }),
      ),
    });
    expect(created.status).toBe(201);
    const { handshakeId, claimUrl } = (await created.json()) as { handshakeId: string; claimUrl: string };
    expect(claimUrl.startsWith(base)).toBe(true);

    const statusTemplate = said(
      guide,
      /poll GET (\S+\{handshakeId\}\/status) with the header/,
      'where to poll',
    );
    const header = said(guide, /with the header\s+`([\w-]+): <VERIFIER>`/, 'the proof header');
    const poll = () =>
      fetch(statusTemplate.replace('{handshakeId}', handshakeId), { headers: { [header]: verifier } });
    const pending = await poll();
    expect(await pending.json()).toMatchObject({ status: 'pending', interval: expect.any(Number) });
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0);

    await pag('handshake', 'approve', '--owner', OWNER.email, '--id', handshakeId);

    expect(guide).toContain('`token.accessToken`');
    const approved = (await (await poll()).json()) as { status: string; token?: { accessToken: string } };
    expect(approved.status).toBe('approved');
    await useToken(guide, approved.token?.accessToken ?? '', 'Learned through the handshake.');
  });

  test('(b) OAuth through the MCP SDK given only the base URL', async () => {
    const guide = await readGuide();
    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl: base })).toBe('REDIRECT');
    // Given only the base URL, before any 401, the SDK asks for the base document's
    // scopes_supported as a whole: never `full`.
    const asked = (provider.authorizationUrl as URL).searchParams.get('scope')?.split(' ') ?? [];
    expect(asked).not.toContain('full');
    const { code } = await consentAs(base, OWNER, provider.authorizationUrl as URL);
    expect(await auth(provider, { serverUrl: base, authorizationCode: code })).toBe('AUTHORIZED');
    await useToken(guide, provider.saved?.access_token ?? '', 'Learned through OAuth.');
  });

  test('(c) an Ed25519 device, as /auth.md tells it', async () => {
    const guide = await readGuide();
    const guideUrl = said(guide, /\[Authentication guide\]\((\S+)\)/, 'where the authentication guide is');
    const authMd = await (await fetch(guideUrl)).text();
    const metadataUrl = said(
      guide,
      /discovery at (\S+\/\.well-known\/oauth-authorization-server)/,
      'the metadata',
    );
    const metadata = (await (await fetch(metadataUrl)).json()) as {
      token_endpoint: string;
      grant_types_supported: string[];
      agent_auth: { identity_endpoint: string };
    };

    // Section 4: the raw 32-byte public key, base64url, with a device name.
    const section = authMd.slice(authMd.indexOf('## 4. An Ed25519 device keypair'));
    expect(section).toContain('raw 32 bytes base64url');
    expect(section).toContain(`curl -X POST ${metadata.agent_auth.identity_endpoint}`);
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'jwk' }).x as string;
    const registered = await fetch(metadata.agent_auth.identity_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        [said(section, /-d '\{"(\w+)": "'"\$PUB"'"/, 'the key field')]: raw,
        [said(section, /"\$PUB"'", "(\w+)": /, 'the name field')]: 'naive laptop',
      }),
    });
    expect(registered.status).toBe(201);
    const device = (await registered.json()) as { deviceId: string; userCode: string; fingerprint: string };

    // The assertion rules and the token request, as the section states them.
    const grantType = said(section, /-d grant_type=(\S+) /, 'the grant type');
    expect(metadata.grant_types_supported).toContain(grantType);
    expect(section).toContain('alg `EdDSA`; `iss` and `sub` are your device id; `aud` is');
    const tokenRequest = () => {
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: device.deviceId,
        sub: device.deviceId,
        aud: metadata.token_endpoint,
        iat: now,
        exp: now + 120,
        jti: randomUUID(),
      };
      const input = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64(claims)}`;
      const assertion = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
      return fetch(metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: grantType, assertion, client_id: device.deviceId }),
      });
    };
    const waiting = await tokenRequest();
    expect(waiting.status).toBe(403);
    const pendingError = ((await waiting.json()) as { error: string }).error;
    expect(section).toContain(`403 \`{"error": "${pendingError}"}\`: wait`);

    await pag(
      'device',
      'approve',
      '--owner',
      OWNER.email,
      '--user-code',
      device.userCode,
      `--fingerprint=${device.fingerprint}`,
    );

    const granted = await tokenRequest();
    expect(granted.status).toBe(200);
    await useToken(
      guide,
      ((await granted.json()) as { access_token: string }).access_token,
      'Learned as a device.',
    );
  });
});
