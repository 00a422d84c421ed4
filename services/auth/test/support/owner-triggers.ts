/**
 * For the dashboard's tests while the trigger service is built elsewhere: the owner's endpoints
 * of the trigger service (TriggerOwnerEndpoints) answered on the test's bus by kit's
 * serveEndpoints, so every message and reply is checked against the contracts as the real service's
 * are. It keeps triggers per account (another account's id is NOT_FOUND, as the real service
 * answers), records every message it was asked (to see which account the dashboard named), and
 * can be told to refuse one change (to see how a refusal is shown). Not the trigger service's
 * behaviour: the page is tested against that, on the whole stack, in test/trigger-dashboard.test.ts.
 */
import type { AnyEndpoint, EndpointInput, OwnerTrigger, TriggerRunRecord } from '@pag/contracts';
import { AppError, OwnerTrigger as OwnerTriggerSchema, TriggerOwnerEndpoints } from '@pag/contracts';
import type { Bus, EndpointHandler } from '@pag/kit';
import { createLogger, createMetrics, handle, serveEndpoints } from '@pag/kit';

export interface AskedOf {
  subject: string;
  accountId: string;
  id: string | null;
}

export interface OwnerTriggers extends AsyncDisposable {
  /** Every message received, in order. */
  readonly asked: AskedOf[];
  add(
    accountId: string,
    trigger: Partial<OwnerTrigger> & Pick<OwnerTrigger, 'id' | 'name' | 'createdBy'>,
  ): void;
  get(accountId: string, id: string): OwnerTrigger | undefined;
  /** The next change of this trigger is refused with `error`. */
  refuseNext(id: string, error: AppError): void;
  close(): Promise<void>;
}

function newTrigger(fields: Partial<OwnerTrigger>): OwnerTrigger {
  return OwnerTriggerSchema.parse({
    kind: 'schedule',
    schedule: { type: 'daily', atHour: 7, atMinute: 0 },
    timezone: 'Europe/Berlin',
    actionType: 'ai_prompt',
    action: { prompt: 'Summarise my day.', services: [], saveOutputToMemory: false },
    status: 'active',
    statusReason: null,
    scopes: ['chat'],
    nextRunAt: '2026-11-25T06:00:00.000Z',
    nextRunAtLocal: '2026-11-25T07:00:00.000+01:00',
    lastRun: null,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    recentRuns: [],
    scheduleText: 'every day at 07:00 (Europe/Berlin)',
    ...fields,
  });
}

export async function serveOwnerTriggers(bus: Bus): Promise<OwnerTriggers> {
  const triggers = new Map<string, { accountId: string; trigger: OwnerTrigger }>();
  const refusals = new Map<string, AppError>();
  const asked: AskedOf[] = [];
  let runs = 0;

  const note = (subject: string, input: { accountId: string; id?: string }) =>
    asked.push({ subject, accountId: input.accountId, id: input.id ?? null });

  /** The account's trigger, after the refusal it was told to give, if any. */
  function own(input: EndpointInput<typeof TriggerOwnerEndpoints.pause>): OwnerTrigger {
    const entry = triggers.get(input.id);
    if (entry === undefined || entry.accountId !== input.accountId)
      throw new AppError('NOT_FOUND', `No trigger ${input.id} among yours.`);
    const refusal = refusals.get(input.id);
    if (refusal !== undefined) {
      refusals.delete(input.id);
      throw refusal;
    }
    return entry.trigger;
  }

  const handlers: EndpointHandler<AnyEndpoint, undefined>[] = [
    handle(TriggerOwnerEndpoints.list, (_caller, input) => {
      note(TriggerOwnerEndpoints.list.subject, input);
      const mine = [...triggers.values()].filter((entry) => entry.accountId === input.accountId);
      return {
        triggers: mine.map(({ trigger }) => ({
          ...trigger,
          recentRuns: trigger.recentRuns.slice(0, input.runs),
        })),
      };
    }),
    handle(TriggerOwnerEndpoints.pause, (_caller, input) => {
      note(TriggerOwnerEndpoints.pause.subject, input);
      return Object.assign(own(input), { status: 'paused', nextRunAt: null, nextRunAtLocal: null });
    }),
    handle(TriggerOwnerEndpoints.resume, (_caller, input) => {
      note(TriggerOwnerEndpoints.resume.subject, input);
      return Object.assign(own(input), {
        status: 'active',
        statusReason: null,
        nextRunAt: '2026-11-25T06:00:00.000Z',
        nextRunAtLocal: '2026-11-25T07:00:00.000+01:00',
      });
    }),
    handle(TriggerOwnerEndpoints.memory, (_caller, input) => {
      note(TriggerOwnerEndpoints.memory.subject, input);
      const trigger = own(input);
      trigger.action.saveOutputToMemory = input.enabled;
      return trigger;
    }),
    handle(TriggerOwnerEndpoints.run, (_caller, input) => {
      note(TriggerOwnerEndpoints.run.subject, input);
      const trigger = own(input);
      runs += 1;
      const now = new Date().toISOString();
      const run: TriggerRunRecord = {
        id: `run_${runs}`,
        triggerId: trigger.id,
        cause: 'manual',
        late: false,
        status: 'queued',
        scheduledFor: now,
        queuedAt: now,
        startedAt: null,
        finishedAt: null,
        attempts: 0,
        output: null,
        model: null,
        memoryId: null,
        error: null,
      };
      trigger.recentRuns.unshift(run);
      return { runId: run.id, triggerId: trigger.id, status: run.status, queuedAt: now };
    }),
    handle(TriggerOwnerEndpoints.remove, (_caller, input) => {
      note(TriggerOwnerEndpoints.remove.subject, input);
      own(input);
      triggers.delete(input.id);
      return { id: input.id, deleted: true as const };
    }),
  ];

  const subscriptions = await serveEndpoints(
    bus,
    {
      service: 'trigger',
      deps: undefined,
      logger: createLogger({ service: 'owner-triggers', level: 'silent' }),
      metrics: createMetrics({ defaultMetrics: false }),
    },
    handlers,
  );
  const self: OwnerTriggers = {
    asked,
    add(accountId, fields) {
      triggers.set(fields.id, { accountId, trigger: newTrigger(fields) });
    },
    get: (accountId, id) => {
      const entry = triggers.get(id);
      return entry?.accountId === accountId ? entry.trigger : undefined;
    },
    refuseNext: (id, error) => refusals.set(id, error),
    async close() {
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
    },
    [Symbol.asyncDispose]: () => self.close(),
  };
  return self;
}
