/**
 * The two pages of an OAuth interaction: sign in, then consent. Plain forms (no script), one
 * heading each, every field labelled; the client's own words (its name) are escaped like any
 * other value, and what it asks for is said in plain words.
 */

import { csrfField } from './csrf.ts';
import type { SafeHtml } from './html.ts';
import { errorBox, html, page } from './html.ts';
import { signInForm } from './owner-pages.ts';

export interface LoginPageInput {
  uid: string;
  csrf: string;
  clientName: string;
  email?: string | undefined;
  error?: string | undefined;
}

function cancelForm(uid: string, csrf: string, label: string): SafeHtml {
  return html`<form method="post" action="/interaction/${encodeURIComponent(uid)}/abort">
${csrfField(csrf)}
<button type="submit">${label}</button>
</form>`;
}

export function loginPage({ uid, csrf, clientName, email, error }: LoginPageInput): string {
  return page({
    title: 'Sign in',
    body: html`<p><strong>${clientName}</strong> wants to connect to your gateway. Sign in to continue.</p>
${errorBox(error)}
${signInForm(`/interaction/${encodeURIComponent(uid)}/login`, csrf, email)}
${cancelForm(uid, csrf, 'Cancel and return to the application')}
<p class="note">No account yet? <a href="/signup">Create one</a>, then start the connection again.</p>`,
  });
}

export interface ConsentScope {
  scope: string;
  description: string;
}

export interface ConsentPageInput {
  uid: string;
  csrf: string;
  clientName: string;
  /** Where the browser goes afterwards (host of the redirect URI, or the URI if it has none). */
  redirectTarget: string;
  accountEmail: string | undefined;
  scopes: readonly ConsentScope[];
}

export function consentPage(input: ConsentPageInput): string {
  const { uid, csrf, clientName, redirectTarget, accountEmail, scopes } = input;
  const items = scopes.map(
    ({ scope, description }) =>
      html`<li><strong>${description}</strong> <span class="note">(${scope})</span></li>`,
  );
  return page({
    title: `Allow ${clientName} to access your gateway?`,
    body: html`${accountEmail ? html`<p class="note">Signed in as ${accountEmail}.</p>` : ''}
<p><strong>${clientName}</strong> is asking for permission to:</p>
<ul>${items}</ul>
<p>If you allow it, you will be sent back to <strong>${redirectTarget}</strong>.
You can revoke this access at any time from your dashboard.</p>
<div class="actions">
<form method="post" action="/interaction/${encodeURIComponent(uid)}/confirm">
${csrfField(csrf)}
<button type="submit">Allow</button>
</form>
${cancelForm(uid, csrf, 'Deny')}
</div>`,
  });
}
