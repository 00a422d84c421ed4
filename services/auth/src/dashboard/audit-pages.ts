/**
 * /dashboard/audit as HTML: the filter form (GET, so a filtered view is a link), the owner's rows
 * newest first (time, agent by name, method, path or action and target, status, decision,
 * latency), the link to older rows and the NDJSON export of the same filter. Plain HTML, every
 * value escaped by `html`, no script.
 */
import type { AuditRecord } from '@pag/contracts';
import { AUDIT_DECISIONS } from '@pag/contracts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import type { Agent } from '../store/agent-store.ts';
import type { AuditFilterValues } from './audit-filter.ts';
import { filterSearch } from './audit-filter.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

export const AUDIT_PATH = '/dashboard/audit';
export const EXPORT_PATH = '/dashboard/audit/export.ndjson';

export interface AuditPageInput {
  owner: OwnerState;
  agents: readonly Agent[];
  values: AuditFilterValues;
  /** The rows shown; null when there are none to show (a bad filter, the log unavailable). */
  records: readonly AuditRecord[] | null;
  /** The `before` of the older page; null on the last. */
  nextBefore: number | null;
  /** Whether this is an older page (then a link back to the newest). */
  paging: boolean;
  /** A filter that means nothing (400), or the log unavailable (503). */
  error?: string | undefined;
}

function selected(on: boolean): SafeHtml {
  return on ? html` selected` : html``;
}

/** Second precision, UTC, machine-readable in the datetime attribute. */
function when(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

function filterForm(input: AuditPageInput): SafeHtml {
  const { values, agents } = input;
  const agentOptions = agents.map(
    (agent) => html`<option value="${agent.id}"${selected(values.agent === agent.id)}>${agent.name}</option>`,
  );
  const decisionOptions = AUDIT_DECISIONS.map(
    (decision) =>
      html`<option value="${decision}"${selected(values.decision === decision)}>${decision}</option>`,
  );
  return html`<form method="get" action="${AUDIT_PATH}" aria-labelledby="filter-title">
<h2 id="filter-title">Filter</h2>
<label for="agent">Agent</label>
<select id="agent" name="agent">
<option value="any"${selected(values.agent === '' || values.agent === 'any')}>any</option>
${agentOptions}
</select>
<label for="status">Status</label>
<input id="status" name="status" type="text" value="${values.status}" aria-describedby="status-hint" autocomplete="off">
<p id="status-hint" class="note">Optional: one status such as <code>404</code>, or a class: <code>2xx</code>, <code>4xx</code>, <code>5xx</code>.</p>
<label for="decision">Decision</label>
<select id="decision" name="decision">
<option value="any"${selected(values.decision === '' || values.decision === 'any')}>any</option>
${decisionOptions}
</select>
<label for="path">Path begins with</label>
<input id="path" name="path" type="text" value="${values.path}" aria-describedby="path-hint" autocomplete="off">
<p id="path-hint" class="note">Optional, e.g. <code>/api/v1/services/github</code>.</p>
<label for="from">From</label>
<input id="from" name="from" type="text" value="${values.from}" aria-describedby="time-hint" autocomplete="off">
<label for="to">To</label>
<input id="to" name="to" type="text" value="${values.to}" aria-describedby="time-hint" autocomplete="off">
<p id="time-hint" class="note">Optional, in UTC: <code>2026-11-24</code> (a whole day) or <code>2026-11-24T09:30</code>.</p>
<button type="submit">Show</button> <a href="${AUDIT_PATH}">Clear the filter</a>
</form>`;
}

function agentCell(record: AuditRecord, names: ReadonlyMap<string, string>): SafeHtml {
  if (record.agentId !== null) {
    const name = names.get(record.agentId);
    return name === undefined ? html`<code>${record.agentId}</code>` : html`${name}`;
  }
  // An action of the owner or the operator has no agent: say who acted.
  return record.actorType === null ? html`<span class="note">none</span>` : html`${record.actorType}`;
}

function whatCell(record: AuditRecord): SafeHtml {
  if (record.kind === 'request') return html`<code>${record.path ?? ''}</code>`;
  return record.target === null
    ? html`<code>${record.action}</code>`
    : html`<code>${record.action}</code> ${record.target}`;
}

function recordRow(record: AuditRecord, names: ReadonlyMap<string, string>): SafeHtml {
  const decision =
    record.reason === null
      ? html`${record.decision}`
      : html`${record.decision}<br><code class="note">${record.reason}</code>`;
  return html`<tr id="seq-${record.seq}">
<td>${when(record.time)}</td>
<td>${agentCell(record, names)}</td>
<td>${record.method ?? ''}</td>
<td>${whatCell(record)}</td>
<td>${record.status ?? ''}</td>
<td>${decision}</td>
<td>${record.latencyMs === null ? '' : `${record.latencyMs} ms`}</td>
</tr>`;
}

function recordTable(input: AuditPageInput, records: readonly AuditRecord[]): SafeHtml {
  if (records.length === 0)
    return html`<p>${input.paging ? 'No older rows match.' : 'Nothing matches this filter yet.'}</p>`;
  const names = new Map(input.agents.map((agent) => [agent.id, agent.name]));
  const older =
    input.nextBefore === null
      ? html``
      : html`<a href="${AUDIT_PATH}${filterSearch(input.values, input.nextBefore)}" rel="next">Older</a>`;
  const newest = input.paging
    ? html`<a href="${AUDIT_PATH}${filterSearch(input.values)}">Newest</a>`
    : html``;
  return html`<table>
<caption class="note">Newest first. Times in UTC.</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Agent</th><th scope="col">Method</th><th scope="col">Path, or action and target</th><th scope="col">Status</th><th scope="col">Decision</th><th scope="col">Latency</th></tr></thead>
<tbody>
${records.map((record) => recordRow(record, names))}
</tbody>
</table>
<nav aria-label="Pages" class="nav">${newest} ${older}</nav>`;
}

export function auditPageHtml(input: AuditPageInput): string {
  const { owner } = input;
  return dashboardPage({
    title: 'Audit log',
    current: AUDIT_PATH,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p class="note">Every request your agents made through the gateway, and every action taken on your behalf.
<a href="${EXPORT_PATH}${filterSearch(input.values)}" download>Export these rows as NDJSON</a> (every matching row, one JSON record per line).</p>
${filterForm(input)}
${errorBox(input.error)}
${input.records === null ? html`` : recordTable(input, input.records)}`,
  });
}
