/**
 * One HTTP request with node:http (which sends any header we ask, cookies included) and its
 * whole answer. The tests stand in for the gateway, so the request carries the gateway's proof
 * (over the x-request-id given, if any) unless `direct` says it reaches the port some other way.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { request } from 'node:http';
import { gatewayHeaders } from '@pag/kit/testing';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json(): unknown;
}

export function httpCall(
  url: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: Buffer | string; direct?: boolean } = {},
): Promise<Answer> {
  const method = options.method ?? 'GET';
  const { pathname, search } = new URL(url);
  const given = options.headers?.['x-request-id'];
  const headers = options.direct
    ? options.headers
    : {
        ...options.headers,
        ...gatewayHeaders(method, `${pathname}${search}`, {
          requestId: typeof given === 'string' ? given : undefined,
        }),
      };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
