/**
 * The resource-server HTTP pipeline every express service shares, one step per file, and the
 * koa error handler (docs/adr/0032-one-resource-server-pipeline.md).
 */
export type {
  AuthenticateOptions,
  AuthFailureBudget,
  BearerIntrospector,
} from './authenticate.ts';
export { authenticate, bearerChallenge, challengeScope } from './authenticate.ts';
export { checkScope } from './check-scope.ts';
export type { ErrorHandlerOptions } from './error-handler.ts';
export { errorHandler, toAppError } from './error-handler.ts';
export { FORWARDING_OPTIONS } from './forwarding.ts';
export { gatewayOnly } from './gateway-only.ts';
export type { Handover, InProcessEntry, VerifiedCaller } from './in-process.ts';
export { koaErrorHandler } from './koa-errors.ts';
export { observe, recordDuration } from './observe.ts';
export { requestId } from './request-id.ts';
export type { RouteLookupOptions } from './route-lookup.ts';
export { routeLookup, suggestPath } from './route-lookup.ts';
export type { StepRunner } from './run-steps.ts';
export { runSteps } from './run-steps.ts';
export type { BearerIdentity, ResourceState } from './state.ts';
export { resourceState } from './state.ts';
