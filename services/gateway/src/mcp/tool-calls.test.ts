/**
 * A tool call names its client's address with the process's own key; anyone else's attempt to
 * name an address is ignored, and neither header reaches a later step.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { requestId } from '@pag/kit';
import express from 'express';
import { state } from '../pipeline/state.ts';
import { ToolCalls } from './tool-calls.ts';

const toolCalls = new ToolCalls();
const app = express();
app.use(requestId);
app.use(toolCalls.acceptToolCallOrigin);
app.get('/seen', (req, res) => {
  res.json({ address: state(res).clientAddress, headers: Object.keys(req.headers) });
});
app.get('/outer', async (req, res) => {
  const answer = await toolCalls.call(req, '203.0.113.7', { method: 'GET', url: '/seen' });
  res.type('json').send(answer.body);
});
let server: ReturnType<typeof app.listen>;
let base = '';
beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

test('a tool call carries its client’s address to the request it makes', async () => {
  const seen = (await (await fetch(`${base}/outer`)).json()) as { address: string; headers: string[] };
  expect(seen.address).toBe('203.0.113.7');
  expect(seen.headers.filter((name) => name.startsWith('pag-tool-call'))).toEqual([]);
});

test('a client naming an address without the key is its own address, and the headers are dropped', async () => {
  const seen = (await (
    await fetch(`${base}/seen`, {
      headers: { 'pag-tool-call-client': '203.0.113.7', 'pag-tool-call-key': 'guess' },
    })
  ).json()) as { address: string; headers: string[] };
  expect(seen.address).toBe('127.0.0.1');
  expect(seen.headers.filter((name) => name.startsWith('pag-tool-call'))).toEqual([]);
});
