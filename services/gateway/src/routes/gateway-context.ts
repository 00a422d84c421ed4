/**
 * GET /api/v1/gateway/context: everything an agent needs to start, in one call. The parts are
 * gathered in parallel over the bus, each with its own short timeout: persona (with
 * soul_content), the owner's identity and long-term memory from the brain (one request,
 * brain.context.get), connected services from the proxy (proxy.services.list); the endpoints
 * this token may call come from the route table, each with whether its service runs now. A part whose service is not running, too slow
 * or failing is null and listed in `unavailable`: the call itself still answers 200.
 *
 * A part is asked for only when the token may call the endpoint that lists the same data
 * (persona: listPersonas, user: identity, memory: this route, services: listServices); a part
 * the token may not read is listed as INSUFFICIENT_SCOPE. Today each of those needs only a
 * valid token; the check keeps the context from ever showing more than those endpoints would.
 */
import type {
  BrainContext,
  DispatchRequest,
  Endpoint,
  EndpointInput,
  EndpointReply,
  ServiceList,
  UnavailablePart,
} from '@pag/contracts';
import {
  AppError,
  BrainEndpoints,
  ProxyEndpoints,
  requiredScope,
  routeById,
  scopeGrants,
} from '@pag/contracts';
import type { Bus, DirectorySnapshot, Logger } from '@pag/kit';
import { BusNoRespondersError, InvalidReplyError, requestEndpoint } from '@pag/kit';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { scopeListing } from '../domain/scope-listing.ts';
import type { LocalHandler } from '../pipeline/dispatch.ts';
import { identityHeaders } from '../pipeline/identity-headers.ts';
import { state } from '../pipeline/state.ts';
import type { ContextParts } from './context-body.ts';
import { contextBody, MemoryText } from './context-body.ts';

type Part = UnavailablePart['part'];
type Code = UnavailablePart['code'];

/** The route whose scope governs each part: the context never shows what that route would not. */
export const CONTEXT_PART_ROUTES: Readonly<Record<Part, string>> = {
  persona: 'listPersonas',
  user: 'identity',
  memory: 'gatewayContext',
  services: 'listServices',
};

export interface GatewayContextOptions {
  bus: Bus;
  /** The running services (kit's ServiceDirectory): the endpoint list's availability. */
  directory: { snapshot(): DirectorySnapshot };
  /** How long each part may take before it is reported unavailable. */
  partTimeoutMs: number;
  logger: Logger;
}

/** Which parts this token may read, by the scope of each part's route. */
export function readableParts(scopes: readonly string[]): Set<Part> {
  const parts = Object.entries(CONTEXT_PART_ROUTES) as [Part, string][];
  return new Set(
    parts
      .filter(([, id]) => {
        const needed = requiredScope(routeById(id), {}, 'GET');
        return needed === null || scopeGrants(scopes, needed);
      })
      .map(([part]) => part),
  );
}

type Outcome<T> = { ok: true; value: T } | { ok: false; code: Code; message: string };

/**
 * A memory as this gateway last had it from the brain: its JSON text as UTF-8 (encoded once, when
 * it came: the answer is written as bytes, context-body.ts) and the version it is of.
 */
interface KnownMemory {
  version: string;
  text: MemoryText;
}

/**
 * How many accounts' memories the gateway keeps (the ones asked most recently); as the brain's
 * own (services/brain/src/store/context-store.ts): near 40 MiB at worst, a handful of accounts
 * in practice. Each memory's bytes are held once, inside the last answer written with it, whose
 * other parts (a persona's soul_content of up to 32 KiB, the endpoint list) add about 20 MiB more
 * at worst (context-body.ts).
 */
const KNOWN_ACCOUNTS = 512;

/**
 * The memory text of each account with its version, so that the brain, told the version, sends an
 * unchanged memory's text (up to 64 KiB of content) no more: encoding it into the bus's JSON and
 * reading it back was the largest part of the context's time (docs/adr/0060, "Sixth round"). The
 * brain compares the version in the snapshot it answers from, so a memory answered from here is
 * the memory of that snapshot, whichever replica or tool changed it.
 */
class KnownMemories {
  /** By account, oldest use first (a Map keeps insertion order). */
  readonly #memories = new Map<string, KnownMemory>();

  get(accountId: string): KnownMemory | undefined {
    return this.#memories.get(accountId);
  }

  /** Keeps the newer of two answers that raced (versions only grow), as the most recently used. */
  keep(accountId: string, memory: KnownMemory): void {
    const known = this.#memories.get(accountId);
    this.#memories.delete(accountId);
    const newer = known !== undefined && BigInt(known.version) > BigInt(memory.version) ? known : memory;
    this.#memories.set(accountId, newer);
    if (this.#memories.size > KNOWN_ACCOUNTS) {
      const oldest = this.#memories.keys().next().value;
      if (oldest !== undefined) this.#memories.delete(oldest);
    }
  }
}

export function gatewayContextHandler(options: GatewayContextOptions): LocalHandler {
  const { bus, directory, partTimeoutMs, logger } = options;
  const empty: DispatchRequest = { params: {}, query: {}, body: null };
  const known = new KnownMemories();

  /** A part's endpoint: it takes the empty DispatchRequest of a GET route and carries the caller. */
  type PartEndpoint = Endpoint<z.ZodType<DispatchRequest>, z.ZodType, 'account'>;

  async function ask<E extends PartEndpoint>(
    endpoint: E,
    headers: Record<string, string>,
    request: DispatchRequest = empty,
  ): Promise<Outcome<EndpointReply<E>>> {
    const { subject, to: service } = endpoint;
    try {
      // Every PartEndpoint takes a DispatchRequest; TypeScript cannot see it through the generic.
      const input = request as EndpointInput<E>;
      const reply = await requestEndpoint(bus, endpoint, input, { timeoutMs: partTimeoutMs, headers });
      return { ok: true, value: reply };
    } catch (error) {
      if (error instanceof InvalidReplyError) {
        logger.warn(
          { subject, requestId: headers['x-request-id'], issues: error.issues },
          'invalid context part',
        );
        return { ok: false, code: 'UPSTREAM_ERROR', message: error.message };
      }
      const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
      if (error instanceof BusNoRespondersError)
        return { ok: false, code: 'SERVICE_UNAVAILABLE', message: `The ${service} service is not running.` };
      // The service runs but cannot answer, e.g. a service it needs is down: its own words.
      if (code === 'SERVICE_UNAVAILABLE' && error instanceof AppError && error.expose)
        return { ok: false, code, message: `The ${service} service cannot answer: ${error.message}` };
      if (code === 'UPSTREAM_TIMEOUT')
        return {
          ok: false,
          code,
          message: `The ${service} service did not answer within ${partTimeoutMs} ms.`,
        };
      logger.warn({ err: error, subject, requestId: headers['x-request-id'] }, 'context part failed');
      return { ok: false, code: 'UPSTREAM_ERROR', message: `The ${service} service failed (${code}).` };
    }
  }

  /**
   * The brain's parts, its memory as text: asked with the version of the account's memory this
   * gateway has, which the brain then leaves out when it is still the memory's version.
   */
  async function askBrain(accountId: string, headers: Record<string, string>): Promise<Outcome<BrainParts>> {
    const had = known.get(accountId);
    const query: Record<string, string> = had === undefined ? {} : { memoryVersion: had.version };
    const outcome = await ask(BrainEndpoints.contextGet, headers, { ...empty, query });
    if (!outcome.ok) return outcome;
    const { memoryJson, memoryVersion, ...parts } = outcome.value;
    if (memoryJson !== null) {
      const text = new MemoryText(Buffer.from(memoryJson));
      known.keep(accountId, { version: memoryVersion, text });
      return { ok: true, value: { ...parts, memory: text } };
    }
    // Left out: the memory is the version asked with, the one `had` holds.
    if (had === undefined || had.version !== memoryVersion) {
      logger.warn(
        { subject: BrainEndpoints.contextGet.subject, requestId: headers['x-request-id'] },
        'the brain left out a memory not asked for',
      );
      return {
        ok: false,
        code: 'UPSTREAM_ERROR',
        message: 'The brain service left out a memory this gateway does not have.',
      };
    }
    known.keep(accountId, had);
    return { ok: true, value: { ...parts, memory: had.text } };
  }

  return async (_req: Request, res: Response) => {
    const { identity } = state(res);
    // A bearer route: authentication has run; otherwise it is a bug.
    if (identity === undefined) throw new AppError('INTERNAL_ERROR', 'No token identity on a bearer route.');
    const readable = readableParts(identity.scopes);
    const headers = identityHeaders(state(res));
    const wantsBrain = readable.has('persona') || readable.has('user') || readable.has('memory');
    const [brain, proxy] = await Promise.all([
      wantsBrain ? askBrain(identity.accountId, headers) : undefined,
      readable.has('services') ? ask(ProxyEndpoints.servicesList, headers) : undefined,
    ]);
    const parts = assemble(readable, brain, proxy);
    const { endpointsJson } = scopeListing(identity.scopes, directory.snapshot());
    res.status(200).type('json').send(contextBody(parts, endpointsJson));
  };
}

/** The brain's parts as the context uses them: its memory's text as UTF-8, whether sent or known. */
type BrainParts = Omit<BrainContext, 'memoryJson' | 'memoryVersion'> & { memory: MemoryText };

function assemble(
  readable: Set<Part>,
  brain: Outcome<BrainParts> | undefined,
  proxy: Outcome<ServiceList> | undefined,
): ContextParts {
  const unavailable: UnavailablePart[] = [];
  const pick = <T>(part: Part, service: string, outcome: Outcome<T> | undefined): T | null => {
    if (!readable.has(part)) {
      const route = routeById(CONTEXT_PART_ROUTES[part]);
      const message = `The token may not read the ${part}: it needs ${requiredScope(route, {}, 'GET')}.`;
      unavailable.push({ part, service, code: 'INSUFFICIENT_SCOPE', message });
      return null;
    }
    if (outcome === undefined) throw new AppError('INTERNAL_ERROR', `The ${part} part was not asked.`);
    if (outcome.ok) return outcome.value;
    unavailable.push({ part, service, code: outcome.code, message: outcome.message });
    return null;
  };
  const brainPart = <K extends keyof BrainParts>(part: Part, key: K) =>
    pick(part, 'brain', brain?.ok === true ? { ok: true, value: brain.value[key] } : brain);
  return {
    persona: brainPart('persona', 'persona'),
    user: brainPart('user', 'user'),
    memory: brainPart('memory', 'memory'),
    // The count travels with the memory part: it is there exactly when the memory is.
    memoryCount: readable.has('memory') && brain?.ok === true ? brain.value.memoryCount : null,
    services: pick('services', 'proxy', proxy)?.services ?? null,
    unavailable,
  };
}
