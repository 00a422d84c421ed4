/**
 * Triggers: scheduled automations that run a prompt with the creator's scopes, never more.
 *
 * Schedule (the spec gives `type`, `atHour`, `atMinute`; the rest is our decision). All times
 * are wall-clock times in the trigger's `timezone`, so a daily 09:00 stays 09:00 across DST:
 * - once:     `date` (YYYY-MM-DD) at atHour:atMinute; a date in the past is refused on creation.
 * - interval: every `intervalMinutes` (5..10080), the first run at the next atHour:atMinute.
 * - daily:    every day at atHour:atMinute.
 * - weekly:   every `weekday` (monday..sunday) at atHour:atMinute.
 * - monthly:  every month on `dayOfMonth` (1..31) at atHour:atMinute; in shorter months on the
 *             last day.
 * A wall-clock time skipped by a DST change runs at the first minute after the gap.
 */
import { z } from 'zod';
import { boundedText, displayName, ResourceId, ServiceName, Timestamp, TimeZone } from './common.ts';

const At = {
  atHour: z.int().min(0).max(23).describe('Hour of the day, 0..23, in the trigger’s time zone.'),
  atMinute: z.int().min(0).max(59).describe('Minute of the hour, 0..59.'),
};

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export const SCHEDULE_TYPES = ['once', 'interval', 'daily', 'weekly', 'monthly'] as const;

export const TriggerSchedule = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('once'),
        date: z.iso.date().describe('The calendar day, YYYY-MM-DD, in the trigger’s time zone.'),
        ...At,
      })
      .strict(),
    z
      .object({
        type: z.literal('interval'),
        intervalMinutes: z.int().min(5).max(10_080).describe('Minutes between runs, 5..10080 (one week).'),
        ...At,
      })
      .strict(),
    z.object({ type: z.literal('daily'), ...At }).strict(),
    z.object({ type: z.literal('weekly'), weekday: z.enum(WEEKDAYS), ...At }).strict(),
    z
      .object({
        type: z.literal('monthly'),
        dayOfMonth: z.int().min(1).max(31).describe('1..31; months without that day run on their last day.'),
        ...At,
      })
      .strict(),
  ])
  .describe('When the trigger runs.')
  .meta({ examples: [{ type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 }] });
export type TriggerSchedule = z.infer<typeof TriggerSchedule>;

/** The prompt's output kept on a run, at most 64 KiB of UTF-8 (longer output is cut, and says so). */
export const TRIGGER_OUTPUT_MAX_BYTES = 64 * 1024;
/** Runs per page of `GET /api/v1/triggers/{id}/runs` (default 20). */
export const TRIGGER_RUNS_PAGE_MAX = 100;

const TriggerAction = z
  .object({
    prompt: boundedText(8 * 1024)
      .describe('What to do, in plain language, at most 8 KiB.')
      .meta({ examples: ['Summarise my unread GitHub notifications and add the summary to memory.'] }),
    services: z
      .array(ServiceName)
      .max(20)
      .refine((names) => new Set(names).size === names.length, { message: 'Each service may appear once.' })
      .describe(
        'Connected services the prompt may use; creating the trigger needs the creator’s read scope for each.',
      )
      .meta({ uniqueItems: true, examples: [['github']] }),
    saveOutputToMemory: z
      .boolean()
      .default(false)
      .describe(
        'Also keep each run’s output as a memory entry of the creating agent (the owner may change it).',
      ),
  })
  .strict();

const triggerFields = {
  name: displayName(100).meta({ examples: ['Monday GitHub digest'] }),
  kind: z.literal('schedule'),
  schedule: TriggerSchedule,
  timezone: TimeZone,
  actionType: z.literal('ai_prompt'),
  action: TriggerAction,
};

export const TriggerCreateRequest = z
  .object(triggerFields)
  .strict()
  .describe(
    'Creates a scheduled automation (Pro or Heavy plan; the token needs `chat` and the read scope of each listed service). It runs as the creating agent, with the scopes of the creating token and never more.',
  );
export type TriggerCreateRequest = z.input<typeof TriggerCreateRequest>;

export const TRIGGER_STATUSES = ['active', 'paused', 'stopped', 'completed'] as const;
export const TriggerStatus = z
  .enum(TRIGGER_STATUSES)
  .describe(
    'active: runs on schedule; paused: by the owner or an agent, resumable; stopped: by the gateway because its creator was revoked or lost a scope it needs (statusReason says which), resumable once that is fixed; completed: a once trigger that ran.',
  );
export type TriggerStatus = z.infer<typeof TriggerStatus>;

export const TRIGGER_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export const TriggerRunStatus = z.enum(TRIGGER_RUN_STATUSES);
export type TriggerRunStatus = z.infer<typeof TriggerRunStatus>;

export const TriggerRunCause = z
  .enum(['schedule', 'manual', 'catch_up'])
  .describe(
    'schedule: at its time; manual: run now; catch_up: the one run that stands for the times missed while no scheduler ran (late is true).',
  );

/** A finished run's error: an error code of the catalogue and what happened. */
export const TriggerRunError = z.object({ code: z.string(), message: z.string() });

/** One run of a trigger, as recorded. */
export const TriggerRunRecord = z
  .object({
    id: ResourceId,
    triggerId: ResourceId,
    cause: TriggerRunCause,
    late: z
      .boolean()
      .describe(
        'A catch-up run: its time was missed by more than the scheduler’s grace (TRIGGER_LATE_GRACE_MS).',
      ),
    status: TriggerRunStatus,
    scheduledFor: Timestamp.describe('The time it was due (for a manual run: when it was asked for).'),
    queuedAt: Timestamp,
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    attempts: z.int().min(0).describe('How many times a scheduler started it (a crash may leave one).'),
    output: z.string().nullable().describe('What the brain answered (markdown), at most 64 KiB.'),
    model: z.string().nullable().describe('The model that answered; "offline" for the offline brain.'),
    memoryId: ResourceId.nullable().describe('The memory entry the output was saved as, if it was.'),
    error: TriggerRunError.nullable(),
  })
  .describe('A run: when it was due, when it started and ended, and what came of it.');
export type TriggerRunRecord = z.infer<typeof TriggerRunRecord>;

export const Trigger = z
  .object({
    id: ResourceId,
    ...triggerFields,
    action: TriggerAction.required(),
    status: TriggerStatus,
    statusReason: z
      .string()
      .nullable()
      .describe('Why it is stopped (or paused, when the gateway paused it).'),
    createdBy: ResourceId.describe('The agent that created it; runs act as this agent.'),
    scopes: z.array(z.string()).describe('The scopes it runs with: those of the token that created it.'),
    nextRunAt: Timestamp.nullable().describe(
      'UTC; null when nothing is scheduled (paused, stopped, completed).',
    ),
    nextRunAtLocal: z
      .string()
      .nullable()
      .describe('The same instant in the trigger’s time zone, ISO 8601 with its offset.')
      .meta({ examples: ['2026-11-30T08:30:00.000+01:00'] }),
    lastRun: TriggerRunRecord.nullable().describe('The newest run, if any.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .describe('A trigger as stored (`trg_…`).');
export type Trigger = z.infer<typeof Trigger>;

export const TriggerList = z.object({ triggers: z.array(Trigger).describe('Newest first.') });
export type TriggerList = z.infer<typeof TriggerList>;

export const TriggerRun = z
  .object({
    runId: ResourceId,
    triggerId: ResourceId,
    status: TriggerRunStatus,
    queuedAt: Timestamp,
  })
  .describe(
    'A run started on demand; it proceeds in the background: follow it in GET /api/v1/triggers/{id}/runs.',
  );
export type TriggerRun = z.infer<typeof TriggerRun>;

export const TriggerRunsQuery = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(TRIGGER_RUNS_PAGE_MAX)
      .optional()
      .describe(`Runs per page, 1..${TRIGGER_RUNS_PAGE_MAX}, default 20.`),
    cursor: z.string().max(200).optional().describe('nextCursor of the previous page.'),
  })
  .strict();

export const TriggerRunPage = z
  .object({
    runs: z.array(TriggerRunRecord).describe('Newest first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for older runs; null: no more.'),
  })
  .describe('A trigger’s run history.');
export type TriggerRunPage = z.infer<typeof TriggerRunPage>;

// The owner's side (the dashboard, from the auth service) --------------------------------------

const Account = z.uuid().describe('The signed-in owner’s account.');

export const OwnerTriggersQuery = z.object({
  accountId: Account,
  /** Runs shown under each trigger, newest first. */
  runs: z.int().min(0).max(20).default(5),
});
export const OwnerTriggerItem = z.object({ accountId: Account, id: ResourceId });
export const OwnerTriggerMemory = z.object({ accountId: Account, id: ResourceId, enabled: z.boolean() });

export const OwnerTrigger = Trigger.extend({
  recentRuns: z.array(TriggerRunRecord).describe('Newest first.'),
  scheduleText: z.string().describe('The schedule in words, e.g. “every Monday at 08:30 (Europe/Berlin)”.'),
});
export type OwnerTrigger = z.infer<typeof OwnerTrigger>;
export const OwnerTriggerList = z.object({ triggers: z.array(OwnerTrigger) });
export type OwnerTriggerList = z.infer<typeof OwnerTriggerList>;

// Between services, for a run ------------------------------------------------------------------

/** auth.agents.grant: what the trigger service checks before each run of an agent's trigger. */
export const AgentGrantQuery = z.object({ accountId: z.uuid(), agentId: ResourceId });
export const AgentGrant = z.object({
  agentId: ResourceId,
  /** unknown: no such agent of that account (deleted). */
  status: z.enum(['active', 'revoked', 'expired', 'unknown']),
  clientId: z.string().nullable(),
  scopes: z.array(z.string()).describe('The agent’s scopes now (empty unless active).'),
  limits: z.object({ daily: z.int().nullable(), monthly: z.int().nullable() }),
  plan: z.enum(['free', 'pro', 'heavy']).nullable().describe('The owner’s plan; null for an unknown agent.'),
});
export type AgentGrant = z.infer<typeof AgentGrant>;

/** gateway.usage.charge: a run counts against its agent's daily and monthly limits like a request. */
export const UsageCharge = z.object({
  accountId: z.uuid(),
  clientId: z.string().min(1),
  limits: z.object({ daily: z.int().nullable(), monthly: z.int().nullable() }),
});
export const UsageCharged = z.object({
  served: z.boolean(),
  /** When refused: seconds until a unit may be free again, and what was broken, in words. */
  retryAfterSeconds: z.int().nullable(),
  message: z.string().nullable(),
});
export type UsageCharged = z.infer<typeof UsageCharged>;

/** brain.prompt.run: the brain carries out a trigger's prompt as its creating agent. */
export const PromptRunRequest = z.object({
  accountId: z.uuid(),
  agentId: ResourceId,
  clientId: z.string().nullable(),
  /** The scopes the run has: the trigger's, narrowed to what the agent still holds. */
  scopes: z.array(z.string()),
  triggerId: ResourceId,
  runId: ResourceId,
  prompt: z.string(),
  services: z.array(ServiceName),
  saveOutputToMemory: z.boolean(),
});
export type PromptRunRequest = z.infer<typeof PromptRunRequest>;
export const PromptServiceCall = z.object({
  service: ServiceName,
  method: z.string(),
  path: z.string(),
  status: z
    .int()
    .nullable()
    .describe('The upstream status; null when the proxy refused it (error says why).'),
  error: z.string().nullable(),
});
export const PromptRunResult = z.object({
  output: z.string().describe('Markdown, at most TRIGGER_OUTPUT_MAX_BYTES.'),
  model: z.string(),
  provider: z.enum(['openai-compatible', 'offline']),
  memoryId: ResourceId.nullable(),
  serviceCalls: z.array(PromptServiceCall),
});
export type PromptRunResult = z.infer<typeof PromptRunResult>;

/** proxy.calls.forward: a service call the brain makes for a trigger run, as the run's agent. */
export const PROXY_CALL_BODY_MAX_BYTES = 256 * 1024;
export const ProxyCallRequest = z.object({
  accountId: z.uuid(),
  agentId: ResourceId,
  clientId: z.string().nullable(),
  scopes: z.array(z.string()),
  service: ServiceName,
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** The path under the service's API base, as after /api/v1/services/{service}/. */
  path: z.string().max(2048),
  query: z.record(z.string(), z.string()).default({}),
  /** JSON text, or null for none. */
  body: z.string().max(PROXY_CALL_BODY_MAX_BYTES).nullable().default(null),
});
export type ProxyCallRequest = z.input<typeof ProxyCallRequest>;
export const ProxyCallResult = z.object({
  status: z.int(),
  contentType: z.string().nullable(),
  /** The upstream body as text, cut at PROXY_CALL_BODY_MAX_BYTES (truncated says so). */
  body: z.string(),
  truncated: z.boolean(),
});
export type ProxyCallResult = z.infer<typeof ProxyCallResult>;
