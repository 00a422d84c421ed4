import { describe, expect, test } from '@jest/globals';
import type { OwnerTrigger, TriggerRunRecord } from '@pag/contracts';
import { OwnerTrigger as OwnerTriggerSchema } from '@pag/contracts';
import type { CreatorLabel } from './triggers-pages.ts';
import { cutText, localTime, SHOWN_CHARS, triggerDeletePage, triggersPage } from './triggers-pages.ts';

const OWNER = {
  id: '7d8e5c1a-0000-4000-8000-000000000001',
  email: 'o@example.test',
  plan: 'pro',
  csrf: 'csrf-1',
};

function run(overrides: Partial<TriggerRunRecord> = {}): TriggerRunRecord {
  return {
    id: 'run_1',
    triggerId: 'trg_1',
    cause: 'schedule',
    late: false,
    status: 'succeeded',
    scheduledFor: '2026-11-23T07:30:00.000Z',
    queuedAt: '2026-11-23T07:30:00.000Z',
    startedAt: '2026-11-23T07:30:01.000Z',
    finishedAt: '2026-11-23T07:30:05.000Z',
    attempts: 1,
    output: 'All quiet.',
    model: 'offline',
    memoryId: null,
    error: null,
    ...overrides,
  };
}

function trigger(overrides: Partial<OwnerTrigger> = {}): OwnerTrigger {
  // Checked against the contract, so the page is tested with what the trigger service may send.
  return OwnerTriggerSchema.parse({
    id: 'trg_1',
    name: 'Monday <digest>',
    kind: 'schedule',
    schedule: { type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 },
    timezone: 'Europe/Berlin',
    actionType: 'ai_prompt',
    action: { prompt: 'Summarise my GitHub notifications.', services: ['github'], saveOutputToMemory: false },
    status: 'active',
    statusReason: null,
    createdBy: 'ag_creator',
    scopes: ['chat', 'services:github:read'],
    nextRunAt: '2026-11-30T07:30:00.000Z',
    nextRunAtLocal: '2026-11-30T08:30:00.000+01:00',
    lastRun: null,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    recentRuns: [run()],
    scheduleText: 'every Monday at 08:30 (Europe/Berlin)',
    ...overrides,
  });
}

const creators: ReadonlyMap<string, CreatorLabel> = new Map([
  ['ag_creator', { name: 'Digest bot', standing: 'active' }],
  ['ag_revoked', { name: 'Old bot', standing: 'revoked' }],
]);

const render = (triggers: OwnerTrigger[] | null, extras: { error?: string } = {}) =>
  triggersPage({ owner: OWNER, triggers, creators, ...extras });

/** Every form of a page, each with the CSRF token of the session. */
const forms = (page: string) =>
  [...page.matchAll(/<form method="post"[^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]);

describe('the triggers page', () => {
  test('shows each trigger with its creator, status, schedule, next run local and UTC, prompt, services', () => {
    const page = render([trigger()]);
    expect(page).toContain('<h2>Monday &lt;digest&gt;</h2>');
    expect(page).toContain('<dt>Created by</dt><dd>Digest bot</dd>');
    expect(page).toContain('<dt>Status</dt><dd><strong>active</strong></dd>');
    expect(page).toContain('every Monday at 08:30 (Europe/Berlin)');
    expect(page).toContain(
      '<time datetime="2026-11-30T08:30:00.000+01:00">2026-11-30 08:30 (Europe/Berlin, UTC+01:00)</time>',
    );
    expect(page).toContain('<time datetime="2026-11-30T07:30:00.000Z">2026-11-30 07:30 UTC</time>');
    expect(page).toContain('Summarise my GitHub notifications.');
    expect(page).toContain('<dt>Services</dt><dd>github</dd>');
    expect(page).toContain('<a href="/dashboard/triggers" aria-current="page">Triggers</a>');
  });

  test('a creator auth no longer has is a deleted agent; a revoked one says so', () => {
    expect(render([trigger({ createdBy: 'ag_gone' })])).toContain(
      '<dt>Created by</dt><dd>deleted agent</dd>',
    );
    expect(render([trigger({ createdBy: 'ag_revoked' })])).toContain('<dd>Old bot (revoked)</dd>');
  });

  test('a stopped trigger says why, offers resume, and has no next run', () => {
    const page = render([
      trigger({
        status: 'stopped',
        statusReason: 'its creator was revoked',
        nextRunAt: null,
        nextRunAtLocal: null,
      }),
    ]);
    expect(page).toContain('<strong>stopped</strong>: its creator was revoked');
    expect(page).toContain('<dt>Next run</dt><dd>none scheduled</dd>');
    expect(page).toContain('action="/dashboard/triggers/trg_1/resume"');
    expect(page).not.toContain('/pause"');
  });

  test('an active trigger offers pause, run now, delete (a confirm step) and the memory toggle', () => {
    const page = render([trigger()]);
    expect(page).toContain('action="/dashboard/triggers/trg_1/pause"');
    expect(page).toContain('action="/dashboard/triggers/trg_1/run"');
    expect(page).toContain('<a href="/dashboard/triggers/trg_1/delete"');
    expect(page).toContain('<input type="hidden" name="enabled" value="true">');
    const on = render([trigger({ action: { prompt: 'p', services: [], saveOutputToMemory: true } })]);
    expect(on).toContain('<input type="hidden" name="enabled" value="false">');
  });

  test('a completed once trigger cannot be resumed', () => {
    const page = render([trigger({ status: 'completed', nextRunAt: null, nextRunAtLocal: null })]);
    expect(page).not.toContain('/resume"');
    expect(page).not.toContain('/pause"');
  });

  test('every form carries the CSRF token', () => {
    const page = render([
      trigger(),
      trigger({ id: 'trg_2', status: 'paused', nextRunAt: null, nextRunAtLocal: null }),
    ]);
    const all = forms(page);
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const form of all) expect(form).toContain('name="_csrf" value="csrf-1"');
    for (const form of forms(triggerDeletePage({ owner: OWNER, trigger: trigger() })))
      expect(form).toContain('name="_csrf" value="csrf-1"');
  });

  test('runs show status, cause, lateness, times and output or error', () => {
    const page = render([
      trigger({
        recentRuns: [
          run({ id: 'run_late', cause: 'catch_up', late: true, attempts: 2 }),
          run({
            id: 'run_failed',
            status: 'failed',
            output: null,
            error: { code: 'CREATOR_REVOKED', message: 'The agent that created it was revoked.' },
          }),
          run({
            id: 'run_queued',
            status: 'queued',
            startedAt: null,
            finishedAt: null,
            output: null,
            model: null,
          }),
        ],
      }),
    ]);
    expect(page).toMatch(
      /<tr id="run-run_late">\s*<td>succeeded<br><span class="note">started 2 times<\/span><\/td>\s*<td>catch_up, <strong>late<\/strong><\/td>/,
    );
    expect(page).toContain(
      '<strong>CREATOR_REVOKED</strong>: <div class="pre">The agent that created it was revoked.</div>',
    );
    expect(page).toMatch(/<tr id="run-run_queued">[\s\S]*?not yet[\s\S]*?no output yet/);
  });

  test('a long output is cut, and whole in a details element', () => {
    const output = `${'a'.repeat(SHOWN_CHARS)}<b>tail</b>`;
    const page = render([trigger({ recentRuns: [run({ output })] })]);
    expect(page).toContain(`<div class="pre">${'a'.repeat(SHOWN_CHARS)}…</div>`);
    expect(page).toContain(
      `<details><summary>Show all of the output (${SHOWN_CHARS + 11} characters)</summary>`,
    );
    expect(page).toContain(`${'a'.repeat(SHOWN_CHARS)}&lt;b&gt;tail&lt;/b&gt;</div></details>`);
  });

  test('no triggers: says how agents create them; a free plan says triggers need Pro or Heavy', () => {
    expect(render([])).toContain('No triggers yet.');
    expect(render([])).not.toContain('Your plan is free');
    expect(triggersPage({ owner: { ...OWNER, plan: 'free' }, triggers: [], creators })).toContain(
      'Your plan is free',
    );
  });

  test('no trigger service: the message, and no list', () => {
    const page = render(null, { error: 'Your triggers are unavailable right now' });
    expect(page).toContain('role="alert">Your triggers are unavailable right now');
    expect(page).not.toContain('No triggers yet.');
  });
});

describe('cutText', () => {
  test('counts characters, never cutting one in two', () => {
    const text = '😀'.repeat(SHOWN_CHARS + 1);
    const { text: shown } = cutText(text, 'output');
    expect(shown).toContain(`<div class="pre">${'😀'.repeat(SHOWN_CHARS)}…</div>`);
    expect(cutText('😀'.repeat(SHOWN_CHARS), 'output').text).not.toContain('<details>');
  });
});

describe('localTime', () => {
  test('the offset of the zone, Z as +00:00', () => {
    expect(localTime('2026-03-29T03:00:00.000+02:00', 'Europe/Berlin').text).toContain(
      '2026-03-29 03:00 (Europe/Berlin, UTC+02:00)',
    );
    expect(localTime('2026-03-29T03:00:00.000Z', 'UTC').text).toContain('2026-03-29 03:00 (UTC, UTC+00:00)');
  });
});
