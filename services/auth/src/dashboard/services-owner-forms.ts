/**
 * The owner's own OAuth settings on /dashboard/services (docs/adr/0068): a client id and secret for
 * an OAuth connector (the owner's own beats the deployment's, for this owner only), and a generic
 * OAuth 2.0 connector the owner defines entirely. Secrets are write-only: the page shows the client
 * id and "secret set", never the secret. Each form shows the redirect URI to register at the
 * provider. Plain HTML, no script (<details> opens without one); every form carries the CSRF token.
 */
import type { Connector, OwnerConnectorFields, OwnerSettings } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { html } from '../interactions/html.ts';

/** What the custom connector form holds: the owner's typed values (kept after a refusal). */
export type ConnectorDraft = Partial<Record<keyof OwnerConnectorFields, string>>;

function redirectNote(redirectUri: string): SafeHtml {
  return html`<p class="note">Register this redirect URI at the provider: <code>${redirectUri}</code></p>`;
}

/** A labelled input named `name`, its id unique on the page (`prefix` + name). */
function field(
  prefix: string,
  name: string,
  label: string,
  value: string | undefined,
  attributes: SafeHtml = html``,
): SafeHtml {
  return html`<label for="${prefix}${name}">${label}</label>
<input id="${prefix}${name}" name="${name}" value="${value ?? ''}"${attributes}>`;
}

/** The client form of one OAuth connector (not the owner's own: that has its client inline). */
export function clientForm(
  connector: Connector,
  settings: OwnerSettings | null,
  csrf: string,
  redirectUri: string,
): SafeHtml {
  const own = settings?.clients.find((client) => client.service === connector.name);
  const service = html`<input type="hidden" name="service" value="${connector.name}">`;
  const prefix = `client-${connector.name}--`;
  const form = html`<form method="post" action="/dashboard/services/client">
${csrfField(csrf)}${service}
${field(prefix, 'clientId', 'Client id', own?.clientId, html` required maxlength="500" autocomplete="off"`)}
<label for="${prefix}clientSecret">Client secret${own ? ' (secret set; type it again to replace it)' : ''}</label>
<input id="${prefix}clientSecret" name="clientSecret" type="password" required maxlength="2000" autocomplete="off">
${redirectNote(redirectUri)}
<button type="submit">${own ? 'Replace your client' : 'Use your own client'}</button>
</form>`;
  const remove = own
    ? html`<form method="post" action="/dashboard/services/client/remove" class="inline">
${csrfField(csrf)}${service}<button type="submit">Remove your client for ${connector.displayName}</button>
</form>`
    : html``;
  const summary = own
    ? html`Your own client: <code>${own.clientId}</code>, secret set`
    : connector.client === 'deployment'
      ? html`Use your own OAuth client instead of this deployment's`
      : html`Enter your own OAuth client to connect ${connector.displayName}`;
  return html`<details data-client="${connector.name}"${connector.client === null ? html` open` : html``}><summary>${summary}</summary>
${form}${remove}</details>`;
}

/**
 * The form defining (or, with `editing`, changing) the owner's own connector: values from the
 * draft, so a refused form comes back as typed (never the secret).
 */
export function customForm(input: {
  draft: ConnectorDraft;
  csrf: string;
  redirectUri: string;
  editing: boolean;
}): SafeHtml {
  const { draft, editing } = input;
  const prefix = `custom-${editing ? (draft.name ?? '') : 'new'}--`;
  const id = (name: string) => `${prefix}${name}`;
  const pkce = draft.pkce === undefined || draft.pkce === 'on' || draft.pkce === 'true';
  const basic = draft.clientAuth === 'client_secret_basic';
  const url = html` required maxlength="2000" inputmode="url"`;
  return html`<form method="post" action="/dashboard/services/custom" data-form="custom">
${csrfField(input.csrf)}
${
  editing
    ? html`<input type="hidden" name="name" value="${draft.name ?? ''}">`
    : field(
        prefix,
        'name',
        'Name (lowercase letters, digits, - and _)',
        draft.name,
        html` required maxlength="100"`,
      )
}
${field(prefix, 'displayName', 'Display name', draft.displayName, html` required maxlength="100"`)}
${field(prefix, 'authorizationUrl', 'Authorization URL', draft.authorizationUrl, url)}
${field(prefix, 'tokenUrl', 'Token URL', draft.tokenUrl, url)}
${field(prefix, 'revocationUrl', 'Revocation URL (optional)', draft.revocationUrl, html` maxlength="2000" inputmode="url"`)}
${field(prefix, 'apiBaseUrl', 'API base URL', draft.apiBaseUrl, url)}
${field(prefix, 'scopes', 'Scopes (separated by spaces)', draft.scopes, html` maxlength="2000"`)}
<label for="${id('clientAuth')}">Client authentication at the token endpoint</label>
<select id="${id('clientAuth')}" name="clientAuth">
<option value="client_secret_post"${basic ? html`` : html` selected`}>client_secret_post (in the form)</option>
<option value="client_secret_basic"${basic ? html` selected` : html``}>client_secret_basic (HTTP Basic)</option>
</select>
<label><input type="checkbox" name="pkce"${pkce ? html` checked` : html``}> The provider takes PKCE (S256)</label>
${field(prefix, 'clientId', 'Client id', draft.clientId, html` required maxlength="500" autocomplete="off"`)}
<label for="${id('clientSecret')}">Client secret${editing ? ' (secret set; leave empty to keep it)' : ''}</label>
<input id="${id('clientSecret')}" name="clientSecret" type="password"${editing ? html`` : html` required`} maxlength="2000" autocomplete="off">
<p class="note">Calls with GET and HEAD read; every other method writes. Every URL must be https and reach a public address.</p>
${redirectNote(input.redirectUri)}
<button type="submit">${editing ? 'Save changes' : 'Add connector'}</button>
</form>`;
}

/** The stored connector's fields as a draft for its edit form. */
export function draftOf(fields: Omit<OwnerConnectorFields, 'clientSecret'>): ConnectorDraft {
  return {
    ...fields,
    revocationUrl: fields.revocationUrl ?? '',
    scopes: fields.scopes.join(' '),
    pkce: fields.pkce ? 'on' : 'off',
  };
}

/** Edit and Delete of one of the owner's own connectors. */
export function ownConnectorActions(
  connector: Connector,
  settings: OwnerSettings | null,
  csrf: string,
  redirectUri: string,
): SafeHtml {
  const stored = settings?.connectors.find((item) => item.name === connector.name);
  const edit = stored
    ? html`<details data-edit="${connector.name}"><summary>Edit ${connector.displayName}</summary>
${customForm({ draft: draftOf(stored), csrf, redirectUri, editing: true })}</details>`
    : html``;
  return html`${edit}<form method="post" action="/dashboard/services/custom/remove" class="inline">
${csrfField(csrf)}<input type="hidden" name="service" value="${connector.name}"><button type="submit">Delete ${connector.displayName}</button>
</form>`;
}
