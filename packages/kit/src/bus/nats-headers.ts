/**
 * Converts between our plain header records and nats.js MsgHdrs. Multi-valued NATS headers keep
 * their first value; `Nats-*` headers (JetStream's own, such as Nats-Msg-Id) are not passed to
 * handlers, as the memory bus never has them either.
 */

import type { MsgHdrs } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Headers } from './types.ts';

/** Expects normalized headers; undefined when there are none, so no header block is sent. */
export function toNatsHeaders(headers: Headers): MsgHdrs | undefined {
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const result = natsHeaders();
  for (const [name, value] of entries) result.set(name, value);
  return result;
}

export function fromNatsHeaders(headers: MsgHdrs | undefined): Headers {
  const result: Headers = {};
  if (!headers) return result;
  for (const [name, values] of headers) {
    const first = values[0];
    if (first !== undefined && !name.toLowerCase().startsWith('nats-')) result[name] = first;
  }
  return result;
}
