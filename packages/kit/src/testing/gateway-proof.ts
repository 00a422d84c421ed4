/**
 * For tests that stand in for the gateway in front of the auth or proxy service: the secret both
 * sides are given, and the headers the gateway would add to a request it forwards.
 */
import { randomUUID } from 'node:crypto';
import { GATEWAY_PROOF_HEADER, MessageHeaders } from '@pag/contracts';
import { signGatewayRequest } from '../auth/gateway-proof.ts';

/** GATEWAY_SECRET of every test deployment (at least 32 characters, as the config requires). */
export const TEST_GATEWAY_SECRET = 'test-gateway-secret-0123456789abcdefghij';

/**
 * The request id (the given one, else a new one) and the proof the gateway sends with
 * `method path` (the path with its query).
 */
export function gatewayHeaders(
  method: string,
  path: string,
  options: { requestId?: string | undefined; secret?: string } = {},
): Record<string, string> {
  const { requestId = randomUUID(), secret = TEST_GATEWAY_SECRET } = options;
  return {
    [MessageHeaders.requestId]: requestId,
    [GATEWAY_PROOF_HEADER]: signGatewayRequest(secret, { method, path, requestId }),
  };
}
