/**
 * The pages of /dashboard/memory: what the owner's agents remembered, newest first (with a search,
 * the best matches first, passages marked), filtered by the agent that wrote it, each entry with
 * that agent's name and a delete button; and the step that confirms deleting every entry of one
 * agent. Plain HTML, no script.
 */
import type { OwnerMemoryPage } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { highlighted, statusLine, when } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

const CURRENT = '/dashboard/memory';

/** The agent filter's value for entries written without an agent (agent ids start with `ag_`). */
export const NO_AGENT = 'none';

export interface MemoryFilter {
  q: string;
  /** An agent id, NO_AGENT, or '' for every entry. */
  agent: string;
}

export interface MemoryPageInput {
  owner: OwnerState;
  filter: MemoryFilter;
  /** null: the brain did not answer. */
  page: OwnerMemoryPage | null;
  paging: boolean;
  /** The owner's agents (id → name), from auth's own records. */
  agentNames: ReadonlyMap<string, string>;
  error?: string | undefined;
  notice?: string | undefined;
}

export function agentLabel(agentId: string | null, names: ReadonlyMap<string, string>): string {
  if (agentId === null) return 'no agent';
  return names.get(agentId) ?? agentId;
}

function filterQuery(filter: MemoryFilter): string {
  const query = new URLSearchParams();
  if (filter.q) query.set('q', filter.q);
  if (filter.agent) query.set('agent', filter.agent);
  return query.toString();
}

function filterForm(input: MemoryPageInput): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}"${input.filter.agent === value ? html` selected` : html``}>${label}</option>`;
  return html`<form method="get" action="/dashboard/memory" role="search">
<label for="q">Search</label>
<input id="q" name="q" type="search" maxlength="500" value="${input.filter.q}">
<label for="agent">Written by</label>
<select id="agent" name="agent">
${option('', 'any agent')}
${[...input.agentNames].map(([id, name]) => option(id, name))}
${option(NO_AGENT, 'no agent')}
</select>
<button type="submit">Show</button>
</form>`;
}

function entryRow(entry: OwnerMemoryPage['entries'][number], input: MemoryPageInput): SafeHtml {
  const text = entry.highlight ? highlighted(entry.highlight) : html`${entry.content}`;
  return html`<tr id="memory-${entry.id}">
<td class="pre">${text}</td>
<td>${agentLabel(entry.agentId, input.agentNames)}</td>
<td>${when(entry.createdAt)}</td>
<td><form method="post" action="/dashboard/memory/${encodeURIComponent(entry.id)}/delete" class="inline">
${csrfField(input.owner.csrf)}
<button type="submit" aria-label="Delete memory ${entry.id}">Delete</button>
</form></td>
</tr>`;
}

function entryTable(input: MemoryPageInput): SafeHtml {
  const { page } = input;
  if (page === null) return html``;
  const count = html`<p class="note">${page.total} ${page.total === 1 ? 'entry' : 'entries'} in all.</p>`;
  if (page.entries.length === 0) return html`${count}<p>Nothing to show.</p>`;
  const query = filterQuery(input.filter);
  const next =
    page.nextCursor === null
      ? html``
      : html`<a href="/dashboard/memory?${query ? `${query}&` : ''}cursor=${encodeURIComponent(page.nextCursor)}">Next page</a>`;
  const first = input.paging
    ? html`<a href="/dashboard/memory${query ? `?${query}` : ''}">First page</a> `
    : html``;
  const clear =
    input.filter.agent === ''
      ? html``
      : html`<p><a href="/dashboard/memory/clear?agent=${encodeURIComponent(input.filter.agent)}">Delete every entry written by ${agentLabel(input.filter.agent === NO_AGENT ? null : input.filter.agent, input.agentNames)}</a></p>`;
  return html`${count}${clear}<table>
<caption class="note">${input.filter.q ? 'Best matches first.' : 'Newest first.'}</caption>
<thead><tr><th scope="col">Entry</th><th scope="col">Written by</th><th scope="col">When</th><th scope="col"><span class="note">Action</span></th></tr></thead>
<tbody>${page.entries.map((entry) => entryRow(entry, input))}</tbody>
</table>
<p>${first}${next}</p>`;
}

export function memoryPage(input: MemoryPageInput): string {
  const { owner } = input;
  return dashboardPage({
    title: 'Memory',
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>What your agents wrote to memory (<code>POST /api/v1/memory</code>); the newest reach every
context. Choose an agent to delete everything it wrote.</p>
${statusLine(input.notice)}
${filterForm(input)}
${errorBox(input.error)}
${entryTable(input)}`,
  });
}

export interface MemoryClearInput {
  owner: OwnerState;
  agent: string;
  label: string;
  error?: string | undefined;
}

export function memoryClearPage({ owner, agent, label, error }: MemoryClearInput): string {
  return dashboardPage({
    title: `Delete the memory of ${label}?`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`${errorBox(error)}
<p>Every memory entry ${label} wrote is deleted, finally. Entries of your other agents stay.</p>
<form method="post" action="/dashboard/memory/clear">
${csrfField(owner.csrf)}
<input type="hidden" name="agent" value="${agent}">
<button type="submit">Delete every entry of ${label}</button>
</form>
<p><a href="/dashboard/memory?agent=${encodeURIComponent(agent)}">Keep them</a></p>`,
  });
}
