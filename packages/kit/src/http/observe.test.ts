/**
 * Every request is counted exactly once in the duration histogram: one that finished with its
 * status, one the client cut before the answer was complete as `aborted`.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import express from 'express';
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { createMetrics } from '../ops/metrics.ts';
import { observe } from './observe.ts';
import { requestId } from './request-id.ts';

const metrics = createMetrics({ defaultMetrics: false });
/** Resolved when the server side of the current request has closed (after observe's listener). */
let closed: Promise<unknown> = Promise.resolve();
const watchClose = (res: ServerResponse) => {
  closed = once(res, 'close');
};

const app = express();
app.use(requestId);
app.use(observe(metrics, 'test', (res) => String(res.locals.label ?? 'unmatched')));
app.get('/done', (_req, res) => {
  watchClose(res);
  res.locals.label = 'done';
  res.status(201).json({ ok: true });
});
app.get('/cut', (_req, res) => {
  watchClose(res);
  res.locals.label = 'cut';
  // The status line and a first chunk are sent; the end never comes before the client leaves.
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('first chunk\n');
});
const server = createServer(app);
let port = 0;
beforeAll(async () => {
  port = await listen(server, 0, '127.0.0.1');
});
afterAll(async () => {
  await closeServer(server);
});

async function counts(): Promise<Record<string, number>> {
  const metric = await metrics.httpRequestDuration.get();
  const found: Record<string, number> = {};
  for (const value of metric.values) {
    if (value.metricName !== 'http_request_duration_seconds_count') continue;
    found[`${value.labels.route} ${value.labels.status}`] = value.value;
  }
  return found;
}

test('a finished request is counted once, with its status and route', async () => {
  const answer = await fetch(`http://127.0.0.1:${port}/done`);
  await answer.json();
  await closed;
  expect(await counts()).toEqual({ 'done 201': 1 });
});

test('a request the client cut is counted once, as aborted', async () => {
  const cut = request({ host: '127.0.0.1', port, path: '/cut' });
  cut.on('error', () => {});
  cut.end();
  const [response] = (await once(cut, 'response')) as [NodeJS.ReadableStream];
  await once(response, 'data');
  cut.destroy();
  await closed;
  expect(await counts()).toEqual({ 'done 201': 1, 'cut aborted': 1 });
});
