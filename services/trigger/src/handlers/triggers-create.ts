/**
 * trigger.triggers.create (POST /api/v1/triggers, 201): a trigger of the calling agent, run with
 * the calling token's scopes. The gateway already refused a plan other than pro or heavy (the
 * route's `plan`, 403 PLAN_REQUIRED) and the contracts the body (400 naming the field); here: a
 * token without an agent is 403 AGENT_REQUIRED, a token without `chat` or a listed service's read
 * scope 403 INSUFFICIENT_SCOPE naming it, a `once` not in the future 400 naming schedule.date.
 */
import { TriggerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { TriggerHandlerDeps } from './trigger-deps.ts';
import { oneTriggerView } from './trigger-views.ts';

export const triggersCreate = handle(
  TriggerEndpoints.triggersCreate,
  async (caller, { body }, { control }: TriggerHandlerDeps) => {
    const row = await control.create(caller, body);
    caller.logger.info({ accountId: caller.accountId, triggerId: row.id }, 'trigger created');
    return oneTriggerView(control, row);
  },
);
