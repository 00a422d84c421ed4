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

const TriggerAction = z
  .object({
    prompt: boundedText(8 * 1024)
      .describe('What to do, in plain language, at most 8 KiB.')
      .meta({ examples: ['Summarise my unread GitHub notifications and add the summary to memory.'] }),
    services: z
      .array(ServiceName)
      .max(20)
      .refine((names) => new Set(names).size === names.length, { message: 'Each service may appear once.' })
      .describe('Connected services the prompt may use; each still needs the creator’s scope for it.')
      .meta({ uniqueItems: true, examples: [['github']] }),
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
    'Creates a scheduled automation (Pro or Heavy plan). It runs with the scopes of the creating token.',
  );
export type TriggerCreateRequest = z.infer<typeof TriggerCreateRequest>;

export const Trigger = z
  .object({
    id: ResourceId,
    ...triggerFields,
    scopes: z.array(z.string()).describe('The scopes it runs with: those of the token that created it.'),
    enabled: z.boolean(),
    nextRunAt: Timestamp.nullable().describe('null: nothing scheduled (a once trigger that ran).'),
    lastRunAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A trigger as stored (fields beyond the request and the id format: our decision).');
export type Trigger = z.infer<typeof Trigger>;

export const TriggerList = z.object({ triggers: z.array(Trigger) });
export type TriggerList = z.infer<typeof TriggerList>;

export const TriggerRun = z
  .object({
    runId: ResourceId,
    triggerId: ResourceId,
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    queuedAt: Timestamp,
  })
  .describe('A run started on demand; it proceeds in the background (shape: our decision).');
export type TriggerRun = z.infer<typeof TriggerRun>;
