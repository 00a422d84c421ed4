/**
 * The page of /dashboard/services: every connector of the catalogue with the owner's connection
 * to it (not connected, connected, needs reconnect: its provider refused to renew the token) and
 * what the owner can do: Connect or Reconnect (OAuth: the browser goes to the provider), an API
 * key form (write-only: never shown back), Disconnect (revokes at the provider where it can).
 * Plain HTML, no script; every form carries the CSRF token.
 */
import type { Connector } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

export interface ServicesPageInput {
  owner: OwnerState;
  /** null: the proxy did not answer. */
  connectors: Connector[] | null;
  error?: string | undefined;
  notice?: string | undefined;
}

const STATE_TEXT = {
  not_connected: 'Not connected',
  healthy: 'Connected',
  needs_reconnect: 'Needs reconnect: the service refused to renew access',
} as const;

function actions(connector: Connector, csrf: string): SafeHtml {
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
  if (!connector.canConnect) {
    return html`<p class="note">This deployment has no OAuth client for ${connector.displayName} (the operator sets <code>CONNECTOR_CLIENTS</code>).</p>${disconnect}`;
  }
  const label = connector.connection === 'not_connected' ? 'Connect' : 'Reconnect';
  return html`<form method="post" action="/dashboard/services/connect" class="inline">
${csrfField(csrf)}${service}<button type="submit">${label} ${connector.displayName}</button>
</form>${disconnect}`;
}

export function servicesPage({ owner, connectors, error, notice }: ServicesPageInput): string {
  const rows = (connectors ?? []).map(
    (connector) => html`<tr>
<th scope="row">${connector.displayName} <code>${connector.name}</code></th>
<td>${connector.authType === 'oauth2' ? 'OAuth' : 'API key'}</td>
<td data-connection="${connector.connection}">${STATE_TEXT[connector.connection]}</td>
<td>${actions(connector, owner.csrf)}</td>
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
</table>`,
  });
}
