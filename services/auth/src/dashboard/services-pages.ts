/**
 * The page of /dashboard/services: every connector of the catalogue with the owner's connection
 * to it (not connected, connected, needs reconnect: its provider refused to renew the token) and
 * what the owner can do: Connect or Reconnect (OAuth: the browser goes to the provider), an API
 * key form (write-only: never shown back), Disconnect (revokes at the provider where it can); the
 * owner's own OAuth client for a connector and the owner's own generic OAuth 2.0 connectors
 * (services-owner-forms.ts, docs/adr/0068). Plain HTML, no script; every form carries the CSRF token.
 */
import type { Connector, OwnerSettings } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';
import type { ConnectorDraft } from './services-owner-forms.ts';
import { clientForm, customForm, ownConnectorActions } from './services-owner-forms.ts';

export interface ServicesPageInput {
  owner: OwnerState;
  /** null: the proxy did not answer. */
  connectors: Connector[] | null;
  /** What the owner entered (own clients and connectors); null: the proxy did not answer. */
  settings: OwnerSettings | null;
  /** The callback the owner registers at a provider for an own client. */
  redirectUri: string;
  /** The new-connector form as the owner typed it (after a refusal). */
  draft?: ConnectorDraft | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}

const STATE_TEXT = {
  not_connected: 'Not connected',
  healthy: 'Connected',
  needs_reconnect: 'Needs reconnect: the service refused to renew access',
} as const;

function actions(connector: Connector, page: ServicesPageInput): SafeHtml {
  const csrf = page.owner.csrf;
  const service = html`<input type="hidden" name="service" value="${connector.name}">`;
  const disconnect =
    connector.connection === 'not_connected'
      ? html``
      : html`<form method="post" action="/dashboard/services/disconnect" class="inline">
${csrfField(csrf)}${service}<button type="submit">Disconnect ${connector.displayName}</button>
</form>`;
  if (connector.authType === 'api_key') {
    return html`<form method="post" action="/dashboard/services/api-key">
${csrfField(csrf)}${service}
<label for="key-${connector.name}">API key for ${connector.displayName}</label>
<input id="key-${connector.name}" name="key" type="password" required maxlength="4000" autocomplete="off">
<button type="submit">${connector.connection === 'not_connected' ? 'Connect' : 'Replace key'}</button>
</form>${disconnect}`;
  }
  const own = connector.owned
    ? ownConnectorActions(connector, page.settings, csrf, page.redirectUri)
    : clientForm(connector, page.settings, csrf, page.redirectUri);
  if (!connector.canConnect) {
    return html`<p class="note">No OAuth client for ${connector.displayName} yet: enter your own below (or the operator sets <code>CONNECTOR_CLIENTS</code>).</p>${disconnect}${own}`;
  }
  const label = connector.connection === 'not_connected' ? 'Connect' : 'Reconnect';
  return html`<form method="post" action="/dashboard/services/connect" class="inline">
${csrfField(csrf)}${service}<button type="submit">${label} ${connector.displayName}</button>
</form>${disconnect}${own}`;
}

export function servicesPage(input: ServicesPageInput): string {
  const { owner, connectors, error, notice } = input;
  const rows = (connectors ?? []).map(
    (connector) => html`<tr>
<th scope="row">${connector.displayName} <code>${connector.name}</code></th>
<td>${connector.authType === 'oauth2' ? 'OAuth' : 'API key'}</td>
<td data-connection="${connector.connection}">${STATE_TEXT[connector.connection]}</td>
<td>${actions(connector, input)}</td>
</tr>`,
  );
  return dashboardPage({
    title: 'Connected services',
    current: '/dashboard/services',
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Services your agents can call through <code>/api/v1/services/{name}/…</code> with your access,
within the scopes you grant them. Tokens are kept encrypted and renewed before they expire.</p>
${statusLine(notice)}
${errorBox(error)}
<table>
<thead><tr><th scope="col">Service</th><th scope="col">How</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<h2 id="custom">Your own OAuth 2.0 connector</h2>
<p>A service not listed above: describe its OAuth 2.0 endpoints and API, and enter your client. Only you see it.</p>
${customForm({ draft: input.draft ?? {}, csrf: owner.csrf, redirectUri: input.redirectUri, editing: false })}`,
  });
}
