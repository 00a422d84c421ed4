/**
 * What can be done to a trigger, once, for every caller: an agent through the API (its handlers
 * check its rights first), the owner through the dashboard (auth service, TriggerOwnerEndpoints)
 * and the operator through `pag trigger`. Each change is a conditional update (the store's
 * transition), read back, and answered from what is stored; each change made by an agent or the
 * owner is an audit action event (`trigger.create|pause|resume|delete|run_now|update`) naming
 * the trigger, never carrying its prompt.
 *
 * - pause: active → paused, nothing scheduled (next_run_at null); pausing a paused one is a no-op;
 *   a stopped or completed one has nothing to pause (409).
 * - resume: paused or stopped → active, the next run computed from now (times missed while paused
 *   are not caught up). A stopped trigger first asks auth.agents.grant: its creator must be active
 *   (else 409 naming why) and still hold every scope the trigger needs (else 403 naming it).
 *   Resuming an active one is a no-op; a completed one, or a once whose time passed, is 409.
 * - delete: the trigger and its runs.
 * - run now: a queued manual run (scheduled_for = now), whatever the status; the scheduler claims it.
 */
import type { AgentGrant, TriggerCreateRequest } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { ActionAuditPublisher } from '@pag/kit';
import type { z } from 'zod';
import { firstMissingScope, narrowedScopes } from '../domain/required-scopes.ts';
import type { RunRow, TriggerRow } from '../domain/trigger-view.ts';
import { scheduleOf } from '../domain/trigger-view.ts';
import { firstRunAt, nextRunAfter } from '../schedule/next-run.ts';
import type { TriggerStatus, TriggerStore } from '../store/trigger-store.ts';

/** auth.agents.grant: what the creating agent may do now. */
export type AgentGrants = (query: { accountId: string; agentId: string }) => Promise<AgentGrant>;

/** Who acts, for the audit event: an agent (its token) or the owner (dashboard); not the operator. */
export interface Actor {
  type: 'agent' | 'owner' | 'operator';
  /** The acting agent (type agent); null for the owner and the operator. */
  agentId: string | null;
  clientId: string | null;
  requestId: string;
}

export interface TriggerControlDeps {
  store: TriggerStore;
  grants: AgentGrants;
  /** null: no audit events (the operator's `pag trigger`, which has no bus). */
  audit: ActionAuditPublisher | null;
  now?: () => Date;
}

/** Who creates: the account, the calling agent and its token. */
export interface Creator {
  accountId: string;
  agentId: string | null;
  clientId: string | null;
  scopes: string[];
  requestId: string;
}

export type TriggerCreateBody = z.output<typeof TriggerCreateRequest>;

export class TriggerControl {
  readonly #store: TriggerStore;
  readonly #grants: AgentGrants;
  readonly #audit: ActionAuditPublisher | null;
  readonly #now: () => Date;

  constructor(deps: TriggerControlDeps) {
    this.#store = deps.store;
    this.#grants = deps.grants;
    this.#audit = deps.audit;
    this.#now = deps.now ?? (() => new Date());
  }

  get store(): TriggerStore {
    return this.#store;
  }

  /** The account's trigger, or 404 (another account's is as unknown as one that never existed). */
  async find(accountId: string, id: string): Promise<TriggerRow> {
    const row = await this.#store.get(accountId, id);
    if (row === null) throw new AppError('NOT_FOUND', `No trigger ${id}.`);
    return row;
  }

  /** `input` as the endpoint validated it (defaults filled in). */
  async create(creator: Creator, input: TriggerCreateBody): Promise<TriggerRow> {
    if (creator.agentId === null) {
      throw new AppError(
        'AGENT_REQUIRED',
        'A trigger runs as the agent that created it; this token has no agent.',
      );
    }
    const missing = firstMissingScope(creator.scopes, input.action.services);
    if (missing !== undefined) {
      throw new AppError(
        'INSUFFICIENT_SCOPE',
        `Creating this trigger needs the scope ${missing}, which the token does not grant: a trigger runs with its creator's scopes and never more.`,
      );
    }
    const now = this.#now();
    const first = firstRunAt(input.schedule, input.timezone, now);
    const row = await this.#store.create({
      accountId: creator.accountId,
      createdByAgent: creator.agentId,
      createdByClient: creator.clientId,
      name: input.name,
      schedule: input.schedule,
      timezone: input.timezone,
      prompt: input.action.prompt,
      services: input.action.services,
      saveOutputToMemory: input.action.saveOutputToMemory,
      scopes: creator.scopes,
      anchorAt: input.schedule.type === 'interval' ? first : null,
      nextRunAt: first,
    });
    this.#record('create', row, {
      type: 'agent',
      agentId: creator.agentId,
      clientId: creator.clientId,
      requestId: creator.requestId,
    });
    return row;
  }

  async pause(row: TriggerRow, actor: Actor): Promise<TriggerRow> {
    if (row.status === 'paused') return row;
    if (row.status !== 'active') throw nothingTo('pause', row);
    const after = await this.#change(row, ['active'], {
      status: 'paused',
      nextRunAt: null,
      statusReason: null,
    });
    if (after.status !== 'paused') throw nothingTo('pause', after);
    this.#record('pause', after, actor);
    return after;
  }

  async resume(row: TriggerRow, actor: Actor): Promise<TriggerRow> {
    if (row.status === 'active') return row;
    if (row.status === 'completed') throw nothingTo('resume', row);
    if (row.status === 'stopped') await this.#checkCreator(row);
    const now = this.#now();
    const next = nextRunAfter(scheduleOf(row), row.timezone, now, row.anchorAt);
    if (next === null) {
      throw new AppError(
        'CONFLICT',
        `Trigger ${row.id} ran once and its time has passed: nothing to resume.`,
        {
          hint: 'Run it now, or create a new trigger with a date in the future.',
        },
      );
    }
    const after = await this.#change(row, [row.status as TriggerStatus], {
      status: 'active',
      nextRunAt: next,
      statusReason: null,
    });
    if (after.status !== 'active') throw nothingTo('resume', after);
    this.#record('resume', after, actor);
    return after;
  }

  async remove(row: TriggerRow, actor: Actor): Promise<void> {
    if (!(await this.#store.delete(row.accountId, row.id)))
      throw new AppError('NOT_FOUND', `No trigger ${row.id}.`);
    this.#record('delete', row, actor);
  }

  async runNow(row: TriggerRow, actor: Actor): Promise<RunRow> {
    const run = await this.#store.queueManualRun(row.accountId, row.id, this.#now());
    if (run === null) throw new AppError('NOT_FOUND', `No trigger ${row.id}.`);
    this.#record('run_now', row, actor, { runId: run.id });
    return run;
  }

  async setSaveOutputToMemory(row: TriggerRow, enabled: boolean, actor: Actor): Promise<TriggerRow> {
    if (!(await this.#store.setSaveOutputToMemory(row.accountId, row.id, enabled, this.#now())))
      throw new AppError('NOT_FOUND', `No trigger ${row.id}.`);
    const after = await this.find(row.accountId, row.id);
    this.#record('update', after, actor, { saveOutputToMemory: enabled });
    return after;
  }

  /** A stopped trigger resumes only when its creator is active and holds what it needs. */
  async #checkCreator(row: TriggerRow): Promise<void> {
    const grant = await this.#grants({ accountId: row.accountId, agentId: row.createdByAgent });
    if (grant.status !== 'active') {
      const why = grant.status === 'unknown' ? 'deleted' : grant.status;
      throw new AppError(
        'CONFLICT',
        `Trigger ${row.id} cannot resume: its creator agent ${row.createdByAgent} is ${why}.`,
        {
          hint: 'A trigger runs as the agent that created it; create a new trigger with an active agent, or delete this one.',
        },
      );
    }
    const missing = firstMissingScope(narrowedScopes(row.scopes, grant.scopes), row.services);
    if (missing !== undefined) {
      throw new AppError(
        'INSUFFICIENT_SCOPE',
        `Trigger ${row.id} cannot resume: its creator agent ${row.createdByAgent} no longer holds ${missing}.`,
        { hint: `The owner can give the agent ${missing} again; then resume it.` },
      );
    }
  }

  async #change(
    row: TriggerRow,
    from: TriggerStatus[],
    to: { status: TriggerStatus; nextRunAt: Date | null; statusReason: string | null },
  ): Promise<TriggerRow> {
    await this.#store.transition(row.accountId, row.id, from, to, this.#now());
    // Changed or not (the scheduler may have stopped or completed it meanwhile): what is stored now.
    return this.find(row.accountId, row.id);
  }

  #record(verb: string, row: TriggerRow, actor: Actor, extra: Record<string, string | boolean> = {}): void {
    if (this.#audit === null || actor.type === 'operator') return;
    this.#audit.record(
      {
        requestId: actor.requestId,
        accountId: row.accountId,
        clientId: actor.clientId,
        // The agent that acted, or the one acted for (the trigger's creator).
        agentId: actor.agentId ?? row.createdByAgent,
        actor: { type: actor.type, id: actor.type === 'owner' ? row.accountId : actor.agentId },
        action: `trigger.${verb}`,
        target: row.id,
        decision: 'allowed',
        reason: null,
        status: null,
        latencyMs: null,
        detail: {
          status: row.status,
          schedule: scheduleOf(row).type,
          services: row.services.join(' ').slice(0, 500),
          creator: row.createdByAgent,
          ...extra,
        },
      },
      { requestId: actor.requestId, triggerId: row.id },
    );
  }
}

function nothingTo(verb: 'pause' | 'resume', row: TriggerRow): AppError {
  const why =
    row.status === 'completed'
      ? 'it ran once and is completed'
      : row.status === 'stopped'
        ? `it is stopped (${row.statusReason ?? 'by the gateway'}); resume it once that is fixed, or delete it`
        : `it is ${row.status}`;
  return new AppError('CONFLICT', `Trigger ${row.id} cannot ${verb}: ${why}.`, {
    hint: 'Read the trigger again (GET /api/v1/triggers/{id}) for its status.',
  });
}
