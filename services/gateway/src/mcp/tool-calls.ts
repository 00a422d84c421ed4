/**
 * How an MCP tool call becomes an API request through the gateway's whole pipeline: an HTTP
 * request to this very server (the address and port the MCP request came in on, over the
 * loopback or the pod's own interface), with the caller's Authorization header.
 *
 * The one thing such a request cannot say by itself is who the client is: it comes from this
 * process. So it carries the client's address in a header together with a key made at start and
 * known only to this process; `acceptToolCallOrigin` (right after the request id step) believes
 * the address only with the right key, and strips both headers from every request, so a client
 * can never name its own address this way. In-process dispatch without a socket (light-my-request)
 * was tried first and dropped: it rewrites the prototypes of express's shared request and
 * response objects, which broke the outer request of the same app.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { state } from '../pipeline/state.ts';
import type { ToolRequest } from './mcp-tools.ts';

const ADDRESS_HEADER = 'pag-tool-call-client';
const KEY_HEADER = 'pag-tool-call-key';

export interface ToolCallAnswer {
  status: number;
  retryAfter: string | null;
  body: string;
}

export class ToolCalls {
  readonly #key = randomBytes(32).toString('base64url');

  /** The step after the request id: the client of a tool call is the MCP request's client. */
  readonly acceptToolCallOrigin = (req: Request, res: Response, next: NextFunction): void => {
    const address = req.headers[ADDRESS_HEADER];
    const key = req.headers[KEY_HEADER];
    // Deleted only when sent: a delete turns the headers object into a slower dictionary for
    // every later step's reads (V8), on every request, for headers almost none carries.
    if (address !== undefined) delete req.headers[ADDRESS_HEADER];
    if (key !== undefined) delete req.headers[KEY_HEADER];
    if (typeof address === 'string' && typeof key === 'string' && this.#isKey(key)) {
      state(res).clientAddress = address;
    }
    next();
  };

  /** The tool's request, made to this server as the MCP request's client made it. */
  async call(outer: Request, clientAddress: string, request: ToolRequest): Promise<ToolCallAnswer> {
    const { localAddress, localPort } = outer.socket;
    if (localAddress === undefined || localPort === undefined)
      throw new Error('the MCP request has no socket');
    const host = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
    const headers: Record<string, string> = {
      accept: 'application/json',
      [ADDRESS_HEADER]: clientAddress,
      [KEY_HEADER]: this.#key,
    };
    for (const name of ['authorization', 'user-agent']) {
      const value = outer.get(name);
      if (value !== undefined) headers[name] = value;
    }
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`http://${host}:${localPort}${request.url}`, {
      method: request.method,
      headers,
      redirect: 'manual',
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
    };
  }

  #isKey(candidate: string): boolean {
    const given = Buffer.from(candidate);
    const key = Buffer.from(this.#key);
    return given.length === key.length && timingSafeEqual(given, key);
  }
}
