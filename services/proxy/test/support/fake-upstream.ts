/**
 * A stand-in for a connected service's API on a free loopback port. It records what arrived
 * (method, path, headers, body size) and answers:
 * - /download/<n>: n MiB streamed in 1 MiB chunks;
 * - /slow: nothing until `release` resolves;
 * - /hold: its head and a first 64 KiB at once, the rest only once `release` resolves;
 * - /redirect: 302 to /elsewhere on the same server (a proxy must not follow it);
 * - /rate-limited?after=X: 429 with `Retry-After: X` (none when X is absent) and a JSON body;
 * - /sized/<n>: n bytes with a Content-Length;
 * - /upload: resolves `firstChunk` as soon as the first body chunk arrives, then reads the rest;
 * - anything else: JSON describing the request, with a cookie and a CORS grant that the proxy
 *   must not pass on.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '@pag/kit';

export const MiB = 1024 * 1024;

export interface Arrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
}

export class FakeUpstream implements AsyncDisposable {
  readonly server: Server = createServer((req, res) => {
    // A call the proxy cut off (a body over its limit, a timeout) ends here as an aborted request.
    this.#serve(req, res).catch(() => res.destroy());
  });
  readonly arrivals: Arrival[] = [];
  release = Promise.withResolvers<void>();
  /** Resolves with the size of the first chunk of an /upload body, before the client sent the rest. */
  firstChunk = Promise.withResolvers<number>();
  url = '';

  static async start(): Promise<FakeUpstream> {
    const fake = new FakeUpstream();
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url?.endsWith('/hold')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(64 * 1024, 7));
      await this.release.promise;
      return void res.end('done');
    }
    let bytes = 0;
    for await (const chunk of req) {
      if (bytes === 0 && req.url?.endsWith('/upload')) this.firstChunk.resolve((chunk as Buffer).length);
      bytes += (chunk as Buffer).length;
    }
    const arrival = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes };
    this.arrivals.push(arrival);
    const download = /\/download\/(\d+)$/.exec(arrival.url);
    if (download !== null) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < Number(download[1]); i += 1) {
        if (!res.write(Buffer.alloc(MiB, i % 256))) await once(res, 'drain');
      }
      return void res.end();
    }
    const sized = /\/sized\/(\d+)$/.exec(arrival.url);
    if (sized !== null) {
      const body = Buffer.alloc(Number(sized[1]), 'x');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
      return void res.end(body);
    }
    if (arrival.url.includes('/rate-limited')) {
      const after = new URL(arrival.url, 'http://upstream').searchParams.get('after');
      res.writeHead(429, {
        'content-type': 'application/json',
        ...(after === null ? {} : { 'retry-after': after }),
      });
      return void res.end(JSON.stringify({ message: 'API rate limit exceeded' }));
    }
    if (arrival.url.endsWith('/forged-report')) {
      // Headers of the gateway's namespace, as a hostile service would send them.
      res.writeHead(200, {
        'pag-proxy-call': JSON.stringify({ service: 'stripe', upstream: null, reason: null }),
        'pag-account-id': '00000000-0000-4000-8000-000000000000',
      });
      return void res.end('{}');
    }
    if (arrival.url.endsWith('/redirect')) {
      res.writeHead(302, { location: `${this.url}/elsewhere` });
      return void res.end();
    }
    if (arrival.url.endsWith('/slow')) {
      await this.release.promise;
      return void res.end('late');
    }
    res.writeHead(201, {
      'content-type': 'application/json',
      'set-cookie': 'upstream_session=abc; Path=/',
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=600',
      'x-ratelimit-remaining': '4999',
    });
    res.end(JSON.stringify(arrival));
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.release.resolve();
    return closeServer(this.server, 1_000);
  }
}
