/**
 * The pages of /dashboard/handshakes: the owner's queue (each pending request with the agent's
 * own words and what every requested scope grants, an approve form that can only narrow the
 * scopes and sets limits and the expiry (90 days ahead unless changed), a deny button), the decided ones below, the page that shows a new token once
 * (or, for an agent that collects its own token, says there is nothing to share), and the claim form. Plain HTML, every field labelled, no script.
 */
import type { OwnerPersona } from '@pag/contracts';
import { describeScope } from '@pag/contracts';
import {
  defaultHandshakeExpiry,
  effectiveStatus,
  HANDSHAKE_TOKEN_DAYS,
} from '../handshakes/handshake-rules.ts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import type { Agent, IssuedToken } from '../store/agent-store.ts';
import type { HandshakeRecord } from '../store/handshake-store.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';
import { approvalPersonaField } from './persona-choice.ts';

const CURRENT = '/dashboard/handshakes';

/** The form field of a requested scope's checkbox (one name per scope: repeated names read as absent). */
export function scopeField(scope: string): string {
  return `scope_${scope}`;
}

function when(date: Date): SafeHtml {
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

function scopeList(scopes: readonly string[]): SafeHtml {
  return html`<ul>${scopes.map(
    (scope) => html`<li><code>${scope}</code>: ${describeScope(scope) ?? 'not a known scope'}</li>`,
  )}</ul>`;
}

export interface QueueInput {
  owner: OwnerState;
  pending: HandshakeRecord[];
  decided: HandshakeRecord[];
  /** A handshake just claimed, to point out. */
  claimedId?: string | undefined;
  /** A refused decision: which handshake, and why. */
  error?: { handshakeId: string; message: string } | undefined;
  /** Today: the expiry field starts HANDSHAKE_TOKEN_DAYS from it. */
  now: Date;
  /** The owner's personas for the approval's choice; null: the brain did not answer. */
  personas: readonly OwnerPersona[] | null;
}

function approveForm(
  record: HandshakeRecord,
  csrf: string,
  now: Date,
  personas: readonly OwnerPersona[] | null,
): SafeHtml {
  const id = record.id;
  const expires = defaultHandshakeExpiry(now).toISOString().slice(0, 10);
  const boxes = record.requestedScopes.map(
    (scope) =>
      html`<label><input type="checkbox" name="${scopeField(scope)}" value="on" checked> <code>${scope}</code>: ${describeScope(scope) ?? ''}</label>`,
  );
  return html`<form method="post" action="/dashboard/handshakes/${id}/approve">
${csrfField(csrf)}
<fieldset>
<legend>Scopes to grant (untick to narrow the request)</legend>
${boxes}
</fieldset>
<label for="daily-${id}">Daily request limit (optional)</label>
<input id="daily-${id}" name="daily" type="number" min="1" step="1" inputmode="numeric">
<label for="monthly-${id}">Monthly request limit (optional)</label>
<input id="monthly-${id}" name="monthly" type="number" min="1" step="1" inputmode="numeric">
<label for="expires-${id}">Expires on</label>
<input id="expires-${id}" name="expires" type="date" value="${expires}" aria-describedby="expires-hint-${id}">
<p id="expires-hint-${id}" class="note">The token works through that day (UTC), then stops; empty: ${HANDSHAKE_TOKEN_DAYS} days from now.</p>
${approvalPersonaField(`persona-${id}`, personas)}
<button type="submit">Approve and create a token</button>
</form>
<form method="post" action="/dashboard/handshakes/${id}/deny">
${csrfField(csrf)}
<button type="submit">Deny</button>
</form>`;
}

function pendingSection(input: QueueInput): SafeHtml {
  if (input.pending.length === 0)
    return html`<p>No request is waiting. An agent without a token asks with <code>POST /api/v1/handshakes</code>; if
you have not received one that an agent says it sent, open the link it showed you.</p>`;
  return html`${input.pending.map(
    (record) => html`<section aria-labelledby="hs-${record.id}">
<h3 id="hs-${record.id}">${record.agentRef}</h3>
${record.id === input.claimedId ? html`<p class="ok" role="status">You claimed this request; decide it below.</p>` : ''}
${input.error?.handshakeId === record.id ? errorBox(input.error.message) : ''}
<p>Asked ${when(record.createdAt)} · <code>${record.id}</code></p>
<blockquote>${record.message}</blockquote>
<p>It asks for:</p>
${scopeList(record.requestedScopes)}
${record.codeChallenge === null ? '' : html`<p class="note">Once you approve, the agent collects its token itself: nothing to copy.</p>`}
${approveForm(record, input.owner.csrf, input.now, input.personas)}
</section>`,
  )}`;
}

function decisionText(record: HandshakeRecord): string {
  const status = effectiveStatus(record);
  if (record.status === 'approved' && status === 'denied') return 'approved, then its token was revoked';
  return status;
}

function decidedSection(decided: HandshakeRecord[]): SafeHtml {
  if (decided.length === 0) return html`<p>No decision yet.</p>`;
  return html`<table>
<thead><tr><th scope="col">Agent</th><th scope="col">Requested</th><th scope="col">Decision</th><th scope="col">Granted</th><th scope="col">Decided</th></tr></thead>
<tbody>${decided.map(
    (record) => html`<tr>
<td>${record.agentRef}<br><code>${record.id}</code></td>
<td>${record.requestedScopes.join(', ')}</td>
<td>${decisionText(record)}</td>
<td>${record.agent?.scopes.join(', ') ?? '—'}</td>
<td>${record.decidedAt ? when(record.decidedAt) : '—'}</td>
</tr>`,
  )}</tbody>
</table>`;
}

export function queuePage(input: QueueInput): string {
  const { error } = input;
  // An error about a request no longer waiting (decided meanwhile) has no form to sit beside.
  const detached = error && !input.pending.some((record) => record.id === error.handshakeId);
  return dashboardPage({
    title: 'Handshakes',
    current: CURRENT,
    email: input.owner.email,
    csrf: input.owner.csrf,
    body: html`<p>Agents without a token ask you for access here. Approving creates an agent with the scopes
you tick (never more than it asked for). An agent that gave a proof when asking collects its token
itself; for any other, you are shown its token once, to give to the agent.
The agent's status then reads <code>approved</code>; revoke the agent on <a href="/dashboard/tokens">Tokens and agents</a>
and it reads <code>denied</code>.</p>
<p><a href="/dashboard/handshakes/claim">Claim a request with its code</a> (when an agent shows you a link).</p>
${detached ? errorBox(error.message) : ''}
<h2>Waiting for you</h2>
${pendingSection(input)}
<h2>Decided</h2>
${decidedSection(input.decided)}`,
  });
}

export interface TokenPageInput {
  owner: OwnerState;
  record: HandshakeRecord;
  agent: Agent;
  /** null: the agent gave a proof and collects its token itself (nothing to share). */
  token: IssuedToken | null;
  /** Why the persona chosen at approval was not set (the approval stands). */
  personaNote?: string | null | undefined;
}

export function tokenPage({ owner, record, agent, token, personaNote }: TokenPageInput): string {
  const limit = (value: number | null, period: 'day' | 'month') =>
    value === null
      ? `no ${period === 'day' ? 'daily' : 'monthly'} limit`
      : `${value} requests per ${period} (UTC)`;
  return dashboardPage({
    title: token === null ? `Approved: ${record.agentRef}` : `Token for ${record.agentRef}`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p class="ok" role="status">Approved. Agent <code>${agent.id}</code> was created.</p>
${personaNote ? html`<p class="error" role="alert">${personaNote}</p>` : html``}
${
  token === null
    ? html`<p id="pickup">Nothing to share: the agent proved when asking that it will collect its token itself, and
it does so on its next status poll. Only that agent can collect it, once.</p>
<p>Its token grants:</p>`
    : html`<p>Give this token to the agent. <strong>It is shown only this once</strong>; it is stored only as a hash.</p>
<p class="secret" id="token" aria-label="The new token">${token.value}</p>
<p>The agent sends it as <code>Authorization: Bearer &lt;token&gt;</code>. It grants:</p>`
}
${scopeList(agent.scopes)}
<p>Limits: ${limit(agent.dailyLimit, 'day')}; ${limit(agent.monthlyLimit, 'month')}.</p>
<p>${agent.expiresAt ? html`It works until ${when(agent.expiresAt)}.` : 'It works until you revoke it.'}</p>
<p><a href="/dashboard/handshakes">Back to the handshakes</a> · revoke it any time on
<a href="/dashboard/tokens">Tokens and agents</a>.</p>`,
  });
}

export interface ClaimPageInput {
  owner: OwnerState;
  code: string;
  error?: string | undefined;
}

export function claimPage({ owner, code, error }: ClaimPageInput): string {
  return dashboardPage({
    title: 'Claim a handshake',
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>When this gateway has several owners, a new request waits for its owner to claim it with the
code in the link the agent showed. Claimed, it appears in your queue, where you approve or deny it.</p>
${errorBox(error)}
<form method="post" action="/dashboard/handshakes/claim">
${csrfField(owner.csrf)}
<label for="code">Claim code</label>
<input id="code" name="code" type="text" required autocomplete="off" spellcheck="false" value="${code}">
<button type="submit">Claim</button>
</form>`,
  });
}
