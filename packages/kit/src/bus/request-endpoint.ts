/**
 * The one way to ask a bus endpoint: the request is typed by the endpoint's request schema, the
 * reply is checked against its reply schema and typed by it. A reply that breaks the schema is
 * 502 UPSTREAM_ERROR naming the answering service (InvalidReplyError), never passed on; the
 * bus's own failures (timeout, no responders) and the service's AppErrors reject as they came.
 */
import type { AnyEndpoint, EndpointInput, EndpointReply } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { z } from 'zod';
import type { Bus, RequestOptions, StreamPart, StreamRequestOptions } from './types.ts';

export class InvalidReplyError extends AppError {
  readonly subject: string;
  /** What the reply broke, for the log (never shown: it may quote the reply). */
  readonly issues: z.core.$ZodIssue[];

  constructor(endpoint: AnyEndpoint, error: z.ZodError) {
    super('UPSTREAM_ERROR', `The ${endpoint.to} service answered with an invalid reply.`, {
      cause: error,
      expose: true,
    });
    this.name = 'InvalidReplyError';
    this.subject = endpoint.subject;
    this.issues = error.issues;
  }
}

export async function requestEndpoint<E extends AnyEndpoint>(
  bus: Bus,
  endpoint: E,
  input: EndpointInput<E>,
  options: RequestOptions,
): Promise<EndpointReply<E>> {
  const reply = await bus.request(endpoint.subject, input, options);
  const parsed = endpoint.reply.safeParse(reply);
  if (!parsed.success) throw new InvalidReplyError(endpoint, parsed.error);
  return parsed.data as EndpointReply<E>;
}

/**
 * Asks and hands the reply on unread, for the gateway alone: it relays a service's answer to a
 * dispatched route as the route's body, so the answering service, which built it from the
 * contracts, is the one that owns its shape.
 */
export function relayEndpoint<E extends AnyEndpoint>(
  bus: Bus,
  endpoint: E,
  input: EndpointInput<E>,
  options: RequestOptions,
): Promise<unknown> {
  return bus.request(endpoint.subject, input, options);
}

/**
 * Asks for a streamed reply: the events as the handler sends them (unread: the answering service
 * owns their shape), then the reply checked against the endpoint's reply schema (InvalidReplyError
 * otherwise). Leaving the loop early cancels the request; the handler's `caller.stream.signal`
 * aborts.
 */
export async function* requestEndpointStream<E extends AnyEndpoint>(
  bus: Bus,
  endpoint: E,
  input: EndpointInput<E>,
  options: StreamRequestOptions,
): AsyncGenerator<StreamPart<EndpointReply<E>>, void, undefined> {
  for await (const part of bus.requestStream(endpoint.subject, input, options)) {
    if (part.kind === 'event') {
      yield part;
      continue;
    }
    const parsed = endpoint.reply.safeParse(part.data);
    if (!parsed.success) throw new InvalidReplyError(endpoint, parsed.error);
    yield { kind: 'reply', data: parsed.data as EndpointReply<E> };
  }
}

/** The streamed counterpart of relayEndpoint: events and reply handed on unread, for the gateway. */
export function relayEndpointStream<E extends AnyEndpoint>(
  bus: Bus,
  endpoint: E,
  input: EndpointInput<E>,
  options: StreamRequestOptions,
): AsyncIterable<StreamPart> {
  return bus.requestStream(endpoint.subject, input, options);
}
