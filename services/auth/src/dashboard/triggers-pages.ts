/**
 * The pages of /dashboard/triggers: every trigger of the owner, newest first, with the agent that
 * created it (its name in auth's own records, "deleted agent" when it is gone), its status and
 * why, the schedule in words, the next run in the trigger's time zone and in UTC, the prompt and
 * services, whether each output is also kept in memory (a toggle), and its recent runs with their
 * output or error (a long one cut, whole in a details element); buttons to run now, pause or
 * resume, and delete after a confirm step. Plain HTML, no script: every action is a form with the
 * CSRF token.
 */
import type { OwnerTrigger, TriggerRunRecord } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine, when } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

const CURRENT = '/dashboard/triggers';

/** Characters of an output, error or prompt shown in the list; the rest is behind "Show all". */
export const SHOWN_CHARS = 300;

/** A trigger's creator as auth knows it: the name, and where it stands unless active. */
export interface CreatorLabel {
  name: string;
  standing: 'active' | 'revoked' | 'expired';
}

export interface TriggersPageInput {
  owner: OwnerState;
  /** null: the trigger service did not answer. */
  triggers: readonly OwnerTrigger[] | null;
  /** The owner's agents by id, from auth's own records. */
  creators: ReadonlyMap<string, CreatorLabel>;
  error?: string | undefined;
  notice?: string | undefined;
}

/**
 * Text cut to `SHOWN_CHARS` characters (never inside a character: code points, not UTF-16
 * units), the whole of it in a details element when it was cut.
 */
export function cutText(text: string, label: string): SafeHtml {
  const characters = Array.from(text);
  if (characters.length <= SHOWN_CHARS) return html`<div class="pre">${text}</div>`;
  const shown = characters.slice(0, SHOWN_CHARS).join('');
  return html`<div class="pre">${shown}…</div>
<details><summary>Show all of the ${label} (${characters.length} characters)</summary><div class="pre">${text}</div></details>`;
}

const LOCAL_ISO = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/** An instant in the trigger's zone, e.g. "2026-11-30 08:30 (Europe/Berlin, UTC+01:00)". */
export function localTime(iso: string, timezone: string): SafeHtml {
  const match = LOCAL_ISO.exec(iso);
  if (match === null) return html`<time datetime="${iso}">${iso} (${timezone})</time>`;
  const offset = match[3] === 'Z' ? '+00:00' : match[3];
  return html`<time datetime="${iso}">${match[1]} ${match[2]} (${timezone}, UTC${offset})</time>`;
}

export function creatorText(agentId: string, creators: ReadonlyMap<string, CreatorLabel>): string {
  const creator = creators.get(agentId);
  if (creator === undefined) return 'deleted agent';
  return creator.standing === 'active' ? creator.name : `${creator.name} (${creator.standing})`;
}

function statusText(trigger: OwnerTrigger): SafeHtml {
  return trigger.statusReason
    ? html`<strong>${trigger.status}</strong>: ${trigger.statusReason}`
    : html`<strong>${trigger.status}</strong>`;
}

function nextRun(trigger: OwnerTrigger): SafeHtml {
  if (trigger.nextRunAt === null) return html`none scheduled`;
  const local =
    trigger.nextRunAtLocal === null
      ? html``
      : html`${localTime(trigger.nextRunAtLocal, trigger.timezone)}<br>`;
  return html`${local}${when(trigger.nextRunAt)}`;
}

function action(trigger: OwnerTrigger, path: string, label: string, csrf: string, fields: SafeHtml = html``) {
  return html`<form method="post" action="/dashboard/triggers/${encodeURIComponent(trigger.id)}/${path}" class="inline">
${csrfField(csrf)}${fields}
<button type="submit" aria-label="${label}: ${trigger.name}">${label}</button>
</form>`;
}

function memoryToggle(trigger: OwnerTrigger, csrf: string): SafeHtml {
  const enabled = trigger.action.saveOutputToMemory;
  const next = enabled ? 'false' : 'true';
  return html`${enabled ? 'on: each output is also a memory entry of the creating agent' : 'off'}
${action(trigger, 'memory', enabled ? 'Stop saving outputs' : 'Save outputs to memory', csrf, html`<input type="hidden" name="enabled" value="${next}">`)}`;
}

function runResult(run: TriggerRunRecord): SafeHtml {
  if (run.error !== null)
    return html`<strong>${run.error.code}</strong>: ${cutText(run.error.message, 'error')}`;
  if (run.output === null) return html`<span class="note">no output yet</span>`;
  const saved = run.memoryId === null ? html`` : html`<p class="note">Saved to memory (${run.memoryId}).</p>`;
  const model = run.model === null ? html`` : html`<p class="note">Answered by ${run.model}.</p>`;
  return html`${cutText(run.output, 'output')}${model}${saved}`;
}

const moment = (iso: string | null) => (iso === null ? html`<span class="note">not yet</span>` : when(iso));

function runRow(run: TriggerRunRecord): SafeHtml {
  const attempts =
    run.attempts > 1 ? html`<br><span class="note">started ${run.attempts} times</span>` : html``;
  return html`<tr id="run-${run.id}">
<td>${run.status}${attempts}</td>
<td>${run.cause}${run.late ? html`, <strong>late</strong>` : html``}</td>
<td>${when(run.scheduledFor)}</td>
<td>${moment(run.startedAt)}</td>
<td>${moment(run.finishedAt)}</td>
<td>${runResult(run)}</td>
</tr>`;
}

function runTable(trigger: OwnerTrigger): SafeHtml {
  if (trigger.recentRuns.length === 0) return html`<p class="note">No runs yet.</p>`;
  return html`<table>
<caption class="note">Recent runs, newest first (times in UTC).</caption>
<thead><tr><th scope="col">Status</th><th scope="col">Cause</th><th scope="col">Due</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Output or error</th></tr></thead>
<tbody>${trigger.recentRuns.map(runRow)}</tbody>
</table>`;
}

function triggerSection(trigger: OwnerTrigger, input: TriggersPageInput): SafeHtml {
  const { csrf } = input.owner;
  const services = trigger.action.services.length === 0 ? 'none' : trigger.action.services.join(', ');
  const pauseOrResume =
    trigger.status === 'active'
      ? action(trigger, 'pause', 'Pause', csrf)
      : trigger.status === 'completed'
        ? html``
        : action(trigger, 'resume', 'Resume', csrf);
  return html`<section id="trigger-${trigger.id}">
<h2>${trigger.name}</h2>
<dl>
<dt>Status</dt><dd>${statusText(trigger)}</dd>
<dt>Created by</dt><dd>${creatorText(trigger.createdBy, input.creators)}</dd>
<dt>Schedule</dt><dd>${trigger.scheduleText}</dd>
<dt>Next run</dt><dd>${nextRun(trigger)}</dd>
<dt>Prompt</dt><dd>${cutText(trigger.action.prompt, 'prompt')}</dd>
<dt>Services</dt><dd>${services}</dd>
<dt>Outputs in memory</dt><dd>${memoryToggle(trigger, csrf)}</dd>
</dl>
<div>${action(trigger, 'run', 'Run now', csrf)} ${pauseOrResume}
<a href="/dashboard/triggers/${encodeURIComponent(trigger.id)}/delete" aria-label="Delete ${trigger.name}">Delete</a></div>
${runTable(trigger)}
</section>`;
}

function triggerList(input: TriggersPageInput): SafeHtml {
  const { triggers } = input;
  if (triggers === null) return html``;
  if (triggers.length === 0)
    return html`<p>No triggers yet. Your agents create them with <code>POST /api/v1/triggers</code>.</p>`;
  return html`${triggers.map((trigger) => triggerSection(trigger, input))}`;
}

export function triggersPage(input: TriggersPageInput): string {
  const { owner } = input;
  const plan =
    owner.plan === 'free'
      ? html`<p class="note">Your plan is free: your agents cannot create triggers, and existing ones do not run, until you move to Pro or Heavy.</p>`
      : html``;
  return dashboardPage({
    title: 'Triggers',
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Automations your agents scheduled: each runs its prompt as the agent that created it, with
that agent's scopes and never more. A trigger whose agent was revoked or lost a scope it needs is
stopped.</p>
${plan}
${statusLine(input.notice)}
${errorBox(input.error)}
${triggerList(input)}`,
  });
}

export interface TriggerDeleteInput {
  owner: OwnerState;
  trigger: OwnerTrigger;
  error?: string | undefined;
}

export function triggerDeletePage({ owner, trigger, error }: TriggerDeleteInput): string {
  return dashboardPage({
    title: `Delete trigger ${trigger.name}?`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`${errorBox(error)}
<p>Deleting is final: it runs no more, and its run history is gone. Memory entries its runs saved stay.</p>
<form method="post" action="/dashboard/triggers/${encodeURIComponent(trigger.id)}/delete">
${csrfField(owner.csrf)}
<button type="submit">Delete ${trigger.name}</button>
</form>
<p><a href="/dashboard/triggers#trigger-${trigger.id}">Keep it</a></p>`,
  });
}
