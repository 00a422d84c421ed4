/**
 * The owner's brain (personas, knowledge, identity, memory, the language-model provider), asked
 * of the brain service over the bus (BrainOwnerEndpoints through owner-service.ts, which names the
 * signed-in owner's account in every message and records confirmed changes in the audit log).
 * No brain answering is a 503 saying the brain is unavailable.
 */
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import type { DashboardDeps } from './dashboard-deps.ts';
import type { OwnerServiceSource } from './owner-service.ts';
import { ownerServiceSource } from './owner-service.ts';

export const BRAIN_UNAVAILABLE_MESSAGE =
  'Your brain is unavailable right now: the brain service did not answer. Nothing was changed; try again in a moment.';

export type BrainSource = OwnerServiceSource;

/** The signed-in owner's brain; `accountId` names the owner outside the dashboard (consent). */
export function brainSource(deps: DashboardDeps, ctx: Context, accountId?: string): BrainSource {
  return accountId === undefined
    ? ownerServiceSource(deps, ctx, BRAIN_UNAVAILABLE_MESSAGE)
    : ownerServiceSource(deps, ctx, BRAIN_UNAVAILABLE_MESSAGE, accountId);
}

/** Whether an error is one a page shows beside the owner's form (the rest go to pageGuard). */
export function isShownRefusal(error: unknown): error is AppError {
  return (
    error instanceof AppError &&
    [
      'INVALID_REQUEST',
      'INVALID_TEXT',
      'CONFLICT',
      'SERVICE_UNAVAILABLE',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ].includes(error.code)
  );
}
