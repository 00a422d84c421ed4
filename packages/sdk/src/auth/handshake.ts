/**
 * The handshake with proof (docs/adr/0058): a PKCE pair made with WebCrypto, the request with its
 * S256 challenge, `onApprovalNeeded` so the agent can tell its human where to approve, then the
 * status polled every `interval` seconds (or as Retry-After says) with the Handshake-Verifier
 * header until the first approved answer carries the token.
 */
import { PagError, SDK_CODES } from '../errors.ts';
import type { ResponseOf } from '../operations.ts';
import { pkcePair } from '../pkce.ts';
import { jsonOf, type Transport } from '../transport.ts';

export interface HandshakeApproval {
  handshakeId: string;
  /** Where the owner claims and decides the request: show it to your human. */
  claimUrl: string;
  /** What to tell the human, in one sentence. */
  instructions: string;
}

export interface HandshakeOptions {
  /** A stable id of your agent; the owner sees it. */
  agentId: string;
  /** Handshake scopes (read, professional, availability…); the owner may grant fewer. */
  requestedScopes: string[];
  /** Who you are and why you need access (at most 500 characters). */
  message: string;
  /** Told where the owner approves; the SDK starts polling when it returns. */
  onApprovalNeeded(approval: HandshakeApproval): void | Promise<void>;
  /** Longest wait for the owner's decision, in seconds (default: a day). */
  maxWaitSeconds?: number;
  signal?: AbortSignal;
}

export type HandshakeToken = NonNullable<ResponseOf<'handshakeStatus'>['token']>;

export const HANDSHAKE_VERIFIER_HEADER = 'Handshake-Verifier';

/** Runs the handshake to its end: the collected token, or ACCESS_DENIED / GAVE_UP_WAITING. */
export async function handshake(
  transport: Transport,
  options: HandshakeOptions,
  sleep: (ms: number) => Promise<void>,
  now: () => number,
): Promise<HandshakeToken> {
  const { verifier, challenge } = await pkcePair();
  const created = await jsonOf<ResponseOf<'createHandshake'>>(
    await transport.send({
      method: 'POST',
      path: '/api/v1/handshakes',
      anonymous: true,
      signal: options.signal,
      json: {
        agentId: options.agentId,
        requestedScopes: options.requestedScopes,
        message: options.message,
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      },
    }),
  );
  await options.onApprovalNeeded({
    handshakeId: created.handshakeId,
    claimUrl: created.claimUrl,
    instructions: `Please open ${created.claimUrl}, sign in as the gateway's owner and approve "${options.agentId}" (asking for ${options.requestedScopes.join(', ')}).`,
  });
  const deadline = now() + (options.maxWaitSeconds ?? 24 * 3600) * 1000;
  const path = `/api/v1/handshakes/${encodeURIComponent(created.handshakeId)}/status`;
  for (;;) {
    const response = await transport.send({
      method: 'GET',
      path,
      anonymous: true,
      signal: options.signal,
      headers: { [HANDSHAKE_VERIFIER_HEADER]: verifier },
    });
    const status = await jsonOf<ResponseOf<'handshakeStatus'>>(response);
    if (status.token !== undefined) return status.token;
    if (status.status === 'denied')
      throw new PagError({
        code: SDK_CODES.ACCESS_DENIED,
        message: `The owner denied handshake ${created.handshakeId}.`,
        hint: 'Ask your human why; a new handshake may ask for fewer scopes.',
      });
    if (status.status === 'approved')
      // Approved and collected, but not by this poll: someone else held the verifier.
      throw new PagError({
        code: SDK_CODES.ACCESS_DENIED,
        message: `The token of handshake ${created.handshakeId} was already collected.`,
        hint: 'Start a new handshake; keep the verifier to yourself.',
      });
    const waitSeconds = Number(response.headers.get('retry-after') ?? status.interval ?? 5);
    if (now() + waitSeconds * 1000 > deadline)
      throw new PagError({
        code: SDK_CODES.GAVE_UP_WAITING,
        message: `Handshake ${created.handshakeId} was still pending when the wait ended.`,
        hint: `The owner can still approve it at ${created.claimUrl}.`,
      });
    await sleep(waitSeconds * 1000);
  }
}
