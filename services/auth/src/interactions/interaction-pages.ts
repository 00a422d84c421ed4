/**
 * The two pages of an OAuth interaction: sign in, then consent. Plain forms (no script), one
 * heading each, every field labelled; the client's own words (its name) are escaped like any
 * other value, and what it asks for is said in plain words. The consent form lets the owner narrow
 * what is granted (a box per scope), set the agent's limits and its persona (the same fields as the
 * handshake approval form).
 */

import type { OwnerPersona } from '@pag/contracts';
import { approvalPersonaField, personaSelect } from '../dashboard/persona-choice.ts';
import { csrfField } from './csrf.ts';
import type { SafeHtml } from './html.ts';
import { errorBox, html, page } from './html.ts';
import { signInForm } from './owner-pages.ts';

export interface LoginPageInput {
  uid: string;
  csrf: string;
  clientName: string;
  /** A client known by its metadata document: the host serving it. */
  documentHost?: string | null | undefined;
  email?: string | undefined;
  error?: string | undefined;
}

function cancelForm(uid: string, csrf: string, label: string): SafeHtml {
  return html`<form method="post" action="/interaction/${encodeURIComponent(uid)}/abort">
${csrfField(csrf)}
<button type="submit">${label}</button>
</form>`;
}

export function loginPage({ uid, csrf, clientName, documentHost, email, error }: LoginPageInput): string {
  const from = documentHost ? html` (described by ${documentHost})` : html``;
  return page({
    title: 'Sign in',
    body: html`<p><strong>${clientName}</strong>${from} wants to connect to your gateway. Sign in to continue.</p>
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

/** What the owner entered on the consent form, shown again when it is refused. */
export interface ConsentFormValues {
  /** The API scopes ticked. */
  scopes: readonly string[];
  daily: string;
  monthly: string;
  persona: string;
}

export interface ConsentPageInput {
  uid: string;
  csrf: string;
  clientName: string;
  /** A client known by its metadata document: the host serving it (who vouches for the name). */
  documentHost: string | null;
  /** Where the browser goes afterwards (host of the redirect URI, or the URI if it has none). */
  redirectTarget: string;
  accountEmail: string | undefined;
  /** The API scopes asked for: a box each, ticked unless the owner unticked it. */
  scopes: readonly ConsentScope[];
  /** openid / offline_access: said, not choosable. */
  oidcScopes: readonly ConsentScope[];
  /** The owner's personas; null: the brain did not answer; undefined: no persona choice here. */
  personas?: readonly OwnerPersona[] | null | undefined;
  form?: ConsentFormValues | undefined;
  error?: string | undefined;
}

/** The form field of an API scope's box (the handshake approval form's name too). */
export function consentScopeField(scope: string): string {
  return `scope_${scope}`;
}

function personaField(personas: ConsentPageInput['personas'], selected: string): SafeHtml {
  if (personas === undefined) return html``;
  if (personas === null) return approvalPersonaField('persona', null);
  return personaSelect({ id: 'persona', personas, selected, label: 'Persona it follows (optional)' });
}

export function consentPage(input: ConsentPageInput): string {
  const { uid, csrf, clientName, redirectTarget, accountEmail, scopes, oidcScopes } = input;
  const form = input.form ?? {
    scopes: scopes.map(({ scope }) => scope),
    daily: '',
    monthly: '',
    persona: '',
  };
  const boxes = scopes.map(({ scope, description }) => {
    const field = consentScopeField(scope);
    const ticked = form.scopes.includes(scope) ? html` checked` : html``;
    return html`<label for="${field}"><input type="checkbox" id="${field}" name="${field}" value="on"${ticked}> <strong>${description}</strong> <span class="note">(${scope})</span></label>`;
  });
  const alsoItems = oidcScopes.map(
    ({ scope, description }) => html`<li>${description} <span class="note">(${scope})</span></li>`,
  );
  const origin = input.documentHost
    ? html`<p class="note">It is identified by its metadata document at <strong>${input.documentHost}</strong>: the name above is what that site says.</p>`
    : html``;
  return page({
    title: `Allow ${clientName} to access your gateway?`,
    body: html`${accountEmail ? html`<p class="note">Signed in as ${accountEmail}.</p>` : ''}
${errorBox(input.error)}
<p><strong>${clientName}</strong> is asking for permission to:</p>
${origin}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/confirm">
${csrfField(csrf)}
<fieldset>
<legend>Permissions (untick any you do not want to grant; unticking all denies access)</legend>
${boxes}
</fieldset>
${alsoItems.length > 0 ? html`<p>It also asks to:</p><ul>${alsoItems}</ul>` : ''}
<label for="daily">Daily request limit (optional)</label>
<input id="daily" name="daily" type="number" min="1" step="1" inputmode="numeric" value="${form.daily}" aria-describedby="limits-hint">
<label for="monthly">Monthly request limit (optional)</label>
<input id="monthly" name="monthly" type="number" min="1" step="1" inputmode="numeric" value="${form.monthly}" aria-describedby="limits-hint">
<p id="limits-hint" class="note">Empty: your account's default.</p>
${personaField(input.personas, form.persona)}
<p>If you allow it, you will be sent back to <strong>${redirectTarget}</strong>.
You can revoke this access at any time from your dashboard.</p>
<button type="submit">Allow</button>
</form>
${cancelForm(uid, csrf, 'Deny')}`,
  });
}
