/**
 * What the dashboard asks of another service for the signed-in owner (the brain's pages,
 * brain-source.ts; the triggers page, trigger-source.ts), over the bus through kit's
 * requestEndpoint: the auth service never reads another service's tables (docs/adr/0040). Every
 * message names the signed-in owner's account: that is the tenancy boundary, and the service
 * reads and changes only that account's rows.
 *
 * The request is checked against the endpoint's schema here first, so a mistake in a form is a
 * 400 naming the field even while the service is down. When no service answers (none running, or
 * not in time) it is "unavailable": an AppError SERVICE_UNAVAILABLE (503) with the page's own
 * message. Whatever the service answered (an AppError such as NOT_FOUND or CONFLICT, a reply that
 * breaks the contract) goes on as it came.
 *
 * recordEdit: a change the service confirmed as an owner action in the audit log, through auth's
 * outbox (docs/adr/0041, 0045), for a service that does not record it itself (the brain); what
 * was done and to which item, never the content or a key. The trigger service records its own.
 */
import type { AnyEndpoint, EndpointInput, EndpointReply } from '@pag/contracts';
import { AppError, invalidRequest, MessageHeaders } from '@pag/contracts';
import { BusNoRespondersError, BusTimeoutError, requestEndpoint } from '@pag/kit';
import type { Context } from 'koa';
import { ownerRequest } from '../interactions/owner-request.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';

export const OWNER_SERVICE_TIMEOUT_MS = 5000;

/** An endpoint's input without the account: the source adds the signed-in owner's. */
export type OwnerInput<E extends AnyEndpoint> = Omit<EndpointInput<E>, 'accountId'>;

/** What an owner's change is called in the audit log, and what it changed. */
export interface OwnerEdit {
  /** `<resource>.<verb>`: persona.save, knowledge.delete, … */
  action: string;
  target: string | null;
  agentId?: string | null;
  /** Facts about the change (never content, never a key). */
  detail?: Record<string, string | number | boolean | null>;
}

export interface OwnerServiceSource {
  /** Asks the service for the signed-in owner; `what` names the request in a 400 message. */
  ask<E extends AnyEndpoint>(endpoint: E, input: OwnerInput<E>, what?: string): Promise<EndpointReply<E>>;
  /** Records a change the service confirmed as the owner's action. */
  recordEdit(edit: OwnerEdit): Promise<void>;
}

/**
 * `unavailable`: what the page says when no service answers. `accountId`: the owner, when the page
 * is not a dashboard page (the consent page knows its owner from the authorization's session).
 */
export function ownerServiceSource(
  deps: DashboardDeps,
  ctx: Context,
  unavailable: string,
  accountId: string = ownerOf(ctx).id,
): OwnerServiceSource {
  const owner = { id: accountId };
  const by = ownerRequest(ctx);
  return {
    async ask(endpoint, input, what = 'form') {
      const parsed = endpoint.request.safeParse({ ...input, accountId: owner.id });
      if (!parsed.success) throw invalidRequest(what, parsed.error);
      try {
        return (await requestEndpoint(deps.bus, endpoint, parsed.data as EndpointInput<typeof endpoint>, {
          timeoutMs: OWNER_SERVICE_TIMEOUT_MS,
          headers: { [MessageHeaders.requestId]: by.requestId },
        })) as EndpointReply<typeof endpoint>;
      } catch (error) {
        if (error instanceof BusNoRespondersError || error instanceof BusTimeoutError)
          throw new AppError('SERVICE_UNAVAILABLE', unavailable, { cause: error, expose: true });
        throw error;
      }
    },
    async recordEdit(edit) {
      await deps.core.auditOutbox.record({
        by,
        accountId: owner.id,
        action: edit.action,
        target: edit.target,
        agentId: edit.agentId ?? null,
        detail: edit.detail ?? {},
      });
    },
  };
}
