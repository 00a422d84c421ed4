/**
 * The authenticated-request scenarios: GET /api/v1/tokens/me/capabilities through the whole
 * pipeline of the embedded stack (request id, route lookup, introspection, scope, usage count,
 * dispatch, audit as far as it is there) with a dashboard token minted by `pag token create`
 * (AgentStore) among several stored ones; beside a bare node:http server answering the same
 * bytes (the handler without the pipeline). Then wrong-token loads: the same forged token every
 * time, a fresh forged one per request (our prefix, a random body, a wrong tag: what an attacker
 * can make), and a fresh random string in the shape tokens had before the prefix (legacy).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StackProcess } from '@pag/testkit';
import { startReadyProcess } from '@pag/testkit';
import { runCli } from '../packages/stack/src/cli/run-cli.ts';
import type { LoadOptions } from './measure.ts';

const OWNER = { email: 'bench-capabilities@example.test', password: 'correct horse battery staple' };
/** Tokens stored at least: a wrong token must not cost more as they grow. */
export const STORED_TOKENS = 20;
export const CAPABILITIES_PATH = '/api/v1/tokens/me/capabilities';
/**
 * A budget of rejected tokens per address no measurement reaches (AUTH_FAILURES_PER_ADDRESS of the
 * stack the wrong tokens are sent to): every wrong token comes from one address, and with the
 * default budget (docs/adr/0026) all but the first 30 would be refused at once (429) without being
 * looked at. What is measured is a wrong token that is checked and counted, as in an attack
 * spread over many addresses.
 */
export const UNBOUNDED_FAILURES = 1_000_000;

/** `pag …` against the running stack's DATA_DIR; the printed lines, or a failure with them. */
export async function pag(dataDir: string, ...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await runCli(
    argv,
    { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    { out: (text) => lines.push(text), err: (text) => lines.push(text) },
  );
  if (code !== 0) throw new Error(`pag ${argv.slice(0, 2).join(' ')} failed (${code}):\n${lines.join('\n')}`);
  return lines;
}

/**
 * An owner with max(count, STORED_TOKENS) dashboard tokens (scope `read`, no limits), each its own
 * agent, made by `pag token create`; returns the last `count`.
 */
export async function mintStackTokens(stack: StackProcess, count: number): Promise<string[]> {
  await pag(stack.dataDir, 'owner', 'create', '--email', OWNER.email, '--password', OWNER.password);
  const tokens: string[] = [];
  for (let i = 1; i <= Math.max(count, STORED_TOKENS); i += 1) {
    const lines = await pag(
      stack.dataDir,
      ...['token', 'create', '--owner', OWNER.email, '--name', `Bench agent ${i}`, '--scopes', 'read'],
    );
    tokens.push(lines.at(-1) ?? '');
  }
  return tokens.slice(-count);
}

/**
 * A forgery of a token of ours: its prefix (`pag_dt_`), then 256 random bits and a random 128-bit
 * "tag", both base64url like ours; random each call. Without the tag key the tag is wrong.
 */
export function forgedTokenLike(token: string): string {
  const prefix = /^pag_[a-z]{2}_/.exec(token)?.[0];
  if (prefix === undefined) throw new Error('not a token of ours');
  return `${prefix}${randomBytes(32).toString('base64url')}${randomBytes(16).toString('base64url')}`;
}

/** A random string in the shape tokens had before our prefix (oidc-provider's: 43 base64url characters). */
export function legacyShapedToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether an answer is the refusal of a wrong token. */
export const refusedBody = (text: string) => text.includes('"INVALID_TOKEN"');

/** The wrong-token loads: the same forged token, a fresh forged one, a fresh legacy-shaped one. */
export const WRONG_TOKEN_KINDS = ['same', 'fresh', 'legacy'] as const;
export type WrongTokenKind = (typeof WRONG_TOKEN_KINDS)[number];

/**
 * The load of one kind of wrong token at `url` (the capabilities path of a stack), forged from
 * `token`, a right one of that stack: the same forgery on every request, or each request with a
 * token of its own, fresh, so nothing about it can be cached. Every answer must be a 401.
 */
export function wrongTokenLoad(
  url: string,
  token: string,
  kind: WrongTokenKind,
): Pick<LoadOptions, 'url' | 'headers' | 'verifyBody' | 'connectionRequests'> {
  if (kind === 'same') {
    return { url, headers: { authorization: `Bearer ${forgedTokenLike(token)}` }, verifyBody: refusedBody };
  }
  const make = kind === 'fresh' ? () => forgedTokenLike(token) : legacyShapedToken;
  const path = new URL(url).pathname;
  return {
    url,
    verifyBody: refusedBody,
    connectionRequests: () => [
      {
        method: 'GET',
        path,
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, authorization: `Bearer ${make()}` },
        }),
      },
    ],
  };
}

/** The baseline server answering `body` for every request, until disposed. */
export async function startSameBodyServer(baselineServer: string, body: Buffer) {
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-'));
  await writeFile(join(dir, 'body.json'), body);
  const server = await startReadyProcess({ args: [baselineServer, join(dir, 'body.json')] });
  return {
    server,
    [Symbol.asyncDispose]: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
