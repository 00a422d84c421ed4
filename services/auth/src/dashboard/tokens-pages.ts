/**
 * /dashboard/tokens as HTML: the new token (once, right after it was made), the create form with
 * every scope's meaning, and the table of the owner's agents of every kind with their limits,
 * usage, status, the persona each follows (a select) and a revoke button. Plain HTML, every field labelled, no script.
 */
import type { AgentUsage, OwnerPersona } from '@pag/contracts';
import { ScopeCatalogue } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import type { Agent, IssuedToken } from '../store/agent-store.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';
import { assignedPersonas, personaSelect } from './persona-choice.ts';
import type { TokenFormValues } from './tokens-form.ts';
import { SCOPE_CHOICES } from './tokens-form.ts';

export interface TokensPageInput {
  owner: OwnerState;
  agents: readonly Agent[];
  /** By client id; null: the gateway did not answer. */
  usage: ReadonlyMap<string, AgentUsage> | null;
  form: TokenFormValues;
  error?: string | undefined;
  /** The token just made: shown on this page only. */
  created?: { agent: Agent; token: IssuedToken } | undefined;
  /** A confirmation, e.g. of a revocation. */
  notice?: string | undefined;
  now: Date;
  /** Why a persona choice failed. */
  personaError?: string | undefined;
  /** The owner's personas, to choose each agent's; null: the brain did not answer. */
  personas: readonly OwnerPersona[] | null;
}

const KIND_LABELS: Record<Agent['kind'], string> = {
  oauth: 'OAuth app',
  dashboard: 'Dashboard token',
  handshake: 'Handshake',
  device: 'Device',
};

/** Minute precision, UTC, machine-readable in the datetime attribute. */
function when(date: Date): SafeHtml {
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

function checked(on: boolean): SafeHtml {
  return on ? html` checked` : html``;
}

function createdBox({ agent, token }: { agent: Agent; token: IssuedToken }): SafeHtml {
  return html`<section class="ok" aria-labelledby="new-token-title">
<h2 id="new-token-title">Token for “${agent.name}”</h2>
<p>Copy it now: it is shown only this once and cannot be recovered (only a keyed hash is stored).
Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<p class="secret"><code id="new-token">${token.value}</code></p>
<p class="note">Scopes: ${agent.scopes.join(' ')}. ${agent.expiresAt ? html`Works until ${when(agent.expiresAt)}.` : 'Works until you revoke it.'}</p>
</section>`;
}

function scopeBoxes(form: TokenFormValues): SafeHtml[] {
  return SCOPE_CHOICES.map(
    (choice) => html`<div>
<label for="${choice.field}"><input type="checkbox" id="${choice.field}" name="${choice.field}" value="on" aria-describedby="${choice.field}-meaning"${checked(form.scopes.includes(choice.scope))}><code>${choice.scope}</code></label>
<p id="${choice.field}-meaning" class="note">${choice.description}</p>
</div>`,
  );
}

function serviceFields(form: TokenFormValues): SafeHtml {
  const read = ScopeCatalogue['services:{name}:read'].description;
  const write = ScopeCatalogue['services:{name}:write'].description;
  const resourceRead = ScopeCatalogue['services:{name}:{resource}:read'].description;
  const resourceWrite = ScopeCatalogue['services:{name}:{resource}:write'].description;
  return html`<fieldset>
<legend>Connected services by name</legend>
<label for="services">Service names</label>
<input id="services" name="services" type="text" value="${form.services}" aria-describedby="services-hint" autocomplete="off">
<p id="services-hint" class="note">Optional. One or more, separated by spaces, e.g. <code>github calendar</code>
(lowercase letters, digits, - and _).</p>
<label for="resource">Only this resource</label>
<input id="resource" name="resource" type="text" value="${form.resource}" aria-describedby="resource-hint" autocomplete="off">
<p id="resource-hint" class="note">Optional, e.g. <code>issues</code>: read and write below then apply to that resource only.
<code>services:{name}:{resource}:read</code>: ${resourceRead}
<code>services:{name}:{resource}:write</code>: ${resourceWrite}</p>
<div>
<label for="service-read"><input type="checkbox" id="service-read" name="service-read" value="on" aria-describedby="service-read-meaning"${checked(form.serviceRead)}>Read (<code>services:{name}:read</code>)</label>
<p id="service-read-meaning" class="note">${read}</p>
</div>
<div>
<label for="service-write"><input type="checkbox" id="service-write" name="service-write" value="on" aria-describedby="service-write-meaning"${checked(form.serviceWrite)}>Write (<code>services:{name}:write</code>)</label>
<p id="service-write-meaning" class="note">${write}</p>
</div>
</fieldset>`;
}

function createForm(csrf: string, form: TokenFormValues, error: string | undefined): SafeHtml {
  return html`<section aria-labelledby="create-title">
<h2 id="create-title">Create a token</h2>
${errorBox(error)}
<form method="post" action="/dashboard/tokens">
${csrfField(csrf)}
<label for="name">Name</label>
<input id="name" name="name" type="text" required maxlength="100" value="${form.name}" aria-describedby="name-hint" autocomplete="off">
<p id="name-hint" class="note">Who will hold it, e.g. “CI bot” or “Claude on my laptop”.</p>
<fieldset>
<legend>Scopes: what the token may do</legend>
${scopeBoxes(form)}
</fieldset>
${serviceFields(form)}
<label for="daily">Requests per day</label>
<input id="daily" name="daily" type="number" min="1" step="1" inputmode="numeric" value="${form.daily}" aria-describedby="limits-hint">
<label for="monthly">Requests per month</label>
<input id="monthly" name="monthly" type="number" min="1" step="1" inputmode="numeric" value="${form.monthly}" aria-describedby="limits-hint">
<p id="limits-hint" class="note">Optional. Empty: no limit. Days and months are counted in UTC.</p>
<label for="expires">Expires on</label>
<input id="expires" name="expires" type="date" value="${form.expires}" aria-describedby="expires-hint">
<p id="expires-hint" class="note">Optional. The token works through that day (UTC). Empty: until you revoke it.</p>
<button type="submit">Create token</button>
</form>
</section>`;
}

function usageCell(agent: Agent, usage: AgentUsage | undefined, known: boolean): SafeHtml {
  const limitText = (limit: number | null) => (limit === null ? 'no limit' : `limit ${limit}`);
  if (!known || usage === undefined)
    return html`Per day: ${limitText(agent.dailyLimit)}<br>Per month: ${limitText(agent.monthlyLimit)}<br><span class="note">usage unavailable</span>`;
  const line = (used: number, limit: number | null) =>
    limit === null ? `${used} (no limit)` : `${used} of ${limit}`;
  return html`Today: ${line(usage.today, agent.dailyLimit)}<br>This month: ${line(usage.thisMonth, agent.monthlyLimit)}`;
}

function statusCell(agent: Agent, now: Date): SafeHtml {
  if (agent.status === 'revoked')
    return agent.revokedAt ? html`revoked ${when(agent.revokedAt)}` : html`revoked`;
  if (agent.expiresAt !== null && agent.expiresAt <= now) return html`expired ${when(agent.expiresAt)}`;
  return agent.expiresAt ? html`active, expires ${when(agent.expiresAt)}` : html`active`;
}

function lastUsedCell(usage: AgentUsage | undefined, known: boolean): SafeHtml {
  if (!known || usage === undefined) return html`<span class="note">unavailable</span>`;
  return usage.lastUsedAt ? when(new Date(usage.lastUsedAt)) : html`never`;
}

function personaCell(agent: Agent, input: TokensPageInput, assigned: ReadonlyMap<string, string>): SafeHtml {
  if (agent.status !== 'active') return html``;
  if (input.personas === null) return html`<span class="note">unavailable</span>`;
  return html`<form method="post" action="/dashboard/tokens/${encodeURIComponent(agent.id)}/persona" class="inline">
${csrfField(input.owner.csrf)}
${personaSelect({ id: `persona-${agent.id}`, personas: input.personas, selected: assigned.get(agent.id) ?? '', label: `Persona of ${agent.name}` })}
<button type="submit" aria-label="Set the persona of ${agent.name}">Set</button>
</form>`;
}

function agentRow(agent: Agent, input: TokensPageInput, assigned: ReadonlyMap<string, string>): SafeHtml {
  const known = input.usage !== null;
  const usage = input.usage?.get(agent.clientId);
  const revoke =
    agent.status === 'active'
      ? html`<form method="post" action="/dashboard/tokens/${encodeURIComponent(agent.id)}/revoke" class="inline">
${csrfField(input.owner.csrf)}
<button type="submit" aria-label="Revoke ${agent.name}">Revoke</button>
</form>`
      : html``;
  return html`<tr id="${agent.id}">
<td>${agent.name}<br><code class="note">${agent.id}</code></td>
<td>${KIND_LABELS[agent.kind]}</td>
<td>${agent.scopes.map((scope) => html`<code>${scope}</code> `)}</td>
<td>${usageCell(agent, usage, known)}</td>
<td>${statusCell(agent, input.now)}</td>
<td>${when(agent.createdAt)}</td>
<td>${lastUsedCell(usage, known)}</td>
<td>${personaCell(agent, input, assigned)}</td>
<td>${revoke}</td>
</tr>`;
}

function agentTable(input: TokensPageInput): SafeHtml {
  if (input.agents.length === 0)
    return html`<p>No agents yet. Create a token above, or let an app sign in with OAuth.</p>`;
  const unavailable =
    input.usage === null
      ? html`<p class="note" role="status">Usage unavailable: the gateway did not answer. Limits still apply.</p>`
      : html``;
  const personasUnavailable =
    input.personas === null
      ? html`<p class="note" role="status">Personas unavailable: the brain did not answer.</p>`
      : html``;
  const assigned = assignedPersonas(input.personas);
  return html`${unavailable}${personasUnavailable}<table>
<caption class="note">Every agent that holds or held your tokens, newest first. Revoking is final and immediate.</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Scopes</th><th scope="col">Usage against limits</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Persona</th><th scope="col"><span class="note">Action</span></th></tr></thead>
<tbody>
${input.agents.map((agent) => agentRow(agent, input, assigned))}
</tbody>
</table>`;
}

export function tokensPage(input: TokensPageInput): string {
  const { owner } = input;
  return dashboardPage({
    title: 'Tokens and agents',
    current: '/dashboard/tokens',
    email: owner.email,
    csrf: owner.csrf,
    body: html`${input.created ? createdBox(input.created) : html``}
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : html``}
${errorBox(input.personaError)}
${createForm(owner.csrf, input.form, input.error)}
<section aria-labelledby="agents-title">
<h2 id="agents-title">Your agents</h2>
${agentTable(input)}
</section>`,
  });
}
