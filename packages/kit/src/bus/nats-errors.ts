/**
 * Turns the NATS client's failures into the bus's AppErrors. nats.js throws TimeoutError on a
 * timeout and reports no responders as a RequestError (or, for a JetStream publish nobody stores,
 * a "jetstream is not enabled" error) whose cause is NoRespondersError.
 */
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { BusNoRespondersError, BusTimeoutError } from './errors.ts';

export function toBusError(error: unknown, subject: string, timeoutMs: number, durable = false): unknown {
  if (error instanceof TimeoutError) return new BusTimeoutError(subject, timeoutMs, { cause: error });
  if (isNoResponders(error)) {
    const message = durable ? `No stream stores ${subject}.` : undefined;
    return new BusNoRespondersError(subject, { cause: error, message });
  }
  return error;
}

function isNoResponders(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof NoRespondersError) return true;
    if (e instanceof RequestError && e.isNoResponders()) return true;
  }
  return false;
}
