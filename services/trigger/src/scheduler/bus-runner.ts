/**
 * The default RunExecutor: one run of an `ai_prompt` trigger, as its creating agent and never with
 * more than that agent holds now (issue 13 points 4 and 5):
 * 1. auth.agents.grant: an agent no longer active stops the trigger (CREATOR_REVOKED); an owner
 *    whose plan lost triggers fails the run (PLAN_REQUIRED, the trigger stays active); the run's
 *    scopes are the trigger's narrowed to the agent's, and a service scope they lack stops the
 *    trigger (INSUFFICIENT_SCOPE naming it);
 * 2. gateway.usage.charge: the run counts against the agent's daily and monthly limits like a
 *    request (USAGE_LIMIT_EXCEEDED when refused, the trigger stays active);
 * 3. brain.prompt.run with the narrowed scopes, waiting up to TRIGGER_RUN_TIMEOUT_MS.
 * A failure of another service (not running, no answer, an error) fails the run with its code.
 */
import type { AgentGrant } from '@pag/contracts';
import {
  AppError,
  AuthEndpoints,
  BrainServiceEndpoints,
  GatewayEndpoints,
  MessageHeaders,
} from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { requestEndpoint } from '@pag/kit';
import { firstMissingScope, narrowedScopes } from '../domain/required-scopes.ts';
import type { ClaimedRun, RunExecutor, RunOutcome } from './types.ts';

/** How long the grant and the charge may take: both are one indexed read or write. */
export const SERVICE_ASK_TIMEOUT_MS = 10_000;

export interface BusRunnerOptions {
  bus: Bus;
  logger: Logger;
  /** TRIGGER_RUN_TIMEOUT_MS. */
  runTimeoutMs: number;
}

const NOT_ACTIVE: Record<Exclude<AgentGrant['status'], 'active'>, string> = {
  revoked: 'Its creator agent was revoked.',
  expired: 'Its creator agent’s access expired.',
  unknown: 'Its creator agent was deleted.',
};

export function busRunner(options: BusRunnerOptions): RunExecutor {
  const { bus, logger } = options;
  return async (run, signal) => {
    // The run's id is its request id: the brain's and the proxy's logs and events of this run carry it.
    const ask = { headers: { [MessageHeaders.requestId]: run.id } };
    try {
      const grant = await requestEndpoint(
        bus,
        AuthEndpoints.agentGrant,
        { accountId: run.accountId, agentId: run.agentId },
        { ...ask, timeoutMs: SERVICE_ASK_TIMEOUT_MS },
      );
      const allowed = checkGrant(run, grant);
      if (allowed.status === 'failed') return allowed;
      signal.throwIfAborted();

      const clientId = grant.clientId ?? run.clientId;
      if (clientId === null) {
        return failed('INTERNAL_ERROR', 'The creating agent has no OAuth client to count the run against.');
      }
      const charged = await requestEndpoint(
        bus,
        GatewayEndpoints.usageCharge,
        { accountId: run.accountId, clientId, limits: grant.limits },
        { ...ask, timeoutMs: SERVICE_ASK_TIMEOUT_MS },
      );
      if (!charged.served) {
        const retry =
          charged.retryAfterSeconds === null ? '' : ` Try again in ${charged.retryAfterSeconds} s.`;
        return failed(
          'USAGE_LIMIT_EXCEEDED',
          `${charged.message ?? 'The creating agent’s daily or monthly limit is reached.'}${retry}`,
        );
      }
      signal.throwIfAborted();

      const result = await requestEndpoint(
        bus,
        BrainServiceEndpoints.promptRun,
        {
          accountId: run.accountId,
          agentId: run.agentId,
          clientId,
          scopes: allowed.scopes,
          triggerId: run.triggerId,
          runId: run.id,
          prompt: run.prompt,
          services: run.services,
          saveOutputToMemory: run.saveOutputToMemory,
        },
        { ...ask, timeoutMs: options.runTimeoutMs },
      );
      return { status: 'succeeded', output: result.output, model: result.model, memoryId: result.memoryId };
    } catch (error) {
      if (signal.aborted || !(error instanceof AppError)) throw error;
      logger.warn({ runId: run.id, code: error.code, err: error }, 'a trigger run failed');
      return failed(error.code, error.expose ? error.message : 'A service the run needs failed.');
    }
  };
}

/** What the grant allows: the run's scopes, or the run's failure (and the trigger's stop). */
function checkGrant(run: ClaimedRun, grant: AgentGrant): Failed | { status: 'allowed'; scopes: string[] } {
  if (grant.status !== 'active') {
    const reason = NOT_ACTIVE[grant.status];
    return { ...failed('CREATOR_REVOKED', `${reason} The trigger is stopped.`), stopTrigger: reason };
  }
  if (grant.plan !== 'pro' && grant.plan !== 'heavy') {
    return failed(
      'PLAN_REQUIRED',
      `The owner’s plan (${grant.plan ?? 'none'}) does not include triggers; the run was skipped.`,
    );
  }
  const scopes = narrowedScopes(run.scopes, grant.scopes);
  const missing = firstMissingScope(scopes, run.services);
  if (missing !== undefined) {
    const reason = `Its creator no longer holds ${missing}.`;
    return { ...failed('INSUFFICIENT_SCOPE', `${reason} The trigger is stopped.`), stopTrigger: reason };
  }
  return { status: 'allowed', scopes };
}

type Failed = Extract<RunOutcome, { status: 'failed' }>;

function failed(code: Failed['error']['code'], message: string): Failed {
  return { status: 'failed', error: { code, message } };
}
