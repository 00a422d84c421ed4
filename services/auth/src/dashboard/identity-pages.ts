/**
 * The page of /dashboard/identity: who the owner is to their agents: a name, a time zone (IANA,
 * offered from the runtime's list), a locale (BCP 47) and a short bio. Plain HTML, no script: the
 * time zones are a datalist, and every value is checked again by the contract's schema.
 */
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine, textArea } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

export interface IdentityFormValues {
  name: string;
  timezone: string;
  locale: string;
  summary: string;
}

const TIME_ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

export interface IdentityPageInput {
  owner: OwnerState;
  /** null: the brain did not answer (then the form is empty, and saving says so again). */
  form: IdentityFormValues | null;
  error?: string | undefined;
  notice?: string | undefined;
}

function timeZoneList(): SafeHtml {
  return html`<datalist id="time-zones">${TIME_ZONES.map((zone) => html`<option value="${zone}">`)}</datalist>`;
}

export function identityPage({ owner, form, error, notice }: IdentityPageInput): string {
  const values = form ?? { name: '', timezone: '', locale: '', summary: '' };
  return dashboardPage({
    title: 'Identity',
    current: '/dashboard/identity',
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Who you are to your agents: every context carries it (<code>user</code> in
<code>GET /api/v1/gateway/context</code>), and chat uses it.</p>
${statusLine(notice)}
${errorBox(error)}
<form method="post" action="/dashboard/identity">
${csrfField(owner.csrf)}
<label for="name">Name</label>
<input id="name" name="name" type="text" required maxlength="100" value="${values.name}" autocomplete="name">
<label for="timezone">Time zone</label>
<input id="timezone" name="timezone" type="text" maxlength="64" list="time-zones" value="${values.timezone}" aria-describedby="timezone-hint" autocomplete="off">
${timeZoneList()}
<p id="timezone-hint" class="note">An IANA name such as <code>Europe/Berlin</code> or <code>America/New_York</code>; empty: none.</p>
<label for="locale">Locale</label>
<input id="locale" name="locale" type="text" maxlength="35" value="${values.locale}" aria-describedby="locale-hint" autocomplete="off">
<p id="locale-hint" class="note">A BCP 47 language tag such as <code>en-GB</code>, <code>de</code> or <code>pt-BR</code>; empty: none.</p>
${textArea({ id: 'summary', label: 'Short bio', value: values.summary, rows: 5, hint: 'A few sentences your agents should know about you; at most 2,000 characters; empty: none.' })}
<button type="submit">Save identity</button>
</form>`,
  });
}
