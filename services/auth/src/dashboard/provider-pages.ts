/**
 * The page of /dashboard/brain: the language model that answers the owner's chat. It says which
 * provider applies (the owner's own, the deployment's, or none: the offline brain), and offers a
 * form for the owner's own OpenAI-compatible provider (base URL, model, API key) and a button that
 * removes it. The key is write-only: never shown back, not even masked; an empty field keeps the
 * stored one. Plain HTML, no script.
 */
import type { ProviderSettings } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine, when } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

/** What the owner typed (never the key: a re-shown form asks for it again). */
export interface ProviderFormValues {
  baseUrl: string;
  model: string;
  noKey: boolean;
}

export interface ProviderPageInput {
  owner: OwnerState;
  /** null: the brain did not answer. */
  settings: ProviderSettings | null;
  form: ProviderFormValues;
  error?: string | undefined;
  notice?: string | undefined;
}

function applies(settings: ProviderSettings | null): SafeHtml {
  if (settings === null) return html``;
  const model = html`<code>${settings.model ?? ''}</code> at <code>${settings.baseUrl ?? ''}</code>`;
  const key = settings.hasApiKey ? 'with an API key' : 'without an API key';
  switch (settings.source) {
    case 'owner':
      return html`<p role="status">Your own provider answers: ${model}, ${key}${settings.updatedAt ? html`, set ${when(settings.updatedAt)}` : html``}.</p>`;
    case 'deployment':
      return html`<p role="status">The deployment's provider answers: ${model}. Set your own below to use another.</p>`;
    default:
      return html`<p role="status">No language model is configured: the offline brain answers from your own knowledge and memory,
quoting and citing them. Set a provider below to chat with a model.</p>`;
  }
}

export function providerPage({ owner, settings, form, error, notice }: ProviderPageInput): string {
  const own = settings?.source === 'owner';
  const remove = own
    ? html`<form method="post" action="/dashboard/brain/clear">
${csrfField(owner.csrf)}
<button type="submit">Remove my provider (the deployment's default applies again)</button>
</form>`
    : html``;
  return dashboardPage({
    title: 'Language model',
    current: '/dashboard/brain',
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>The model that answers <code>POST /api/v1/brain/chat</code> for your agents: any OpenAI-compatible
chat-completions API (a hosted one, or a local server such as Ollama, vLLM or llama.cpp's).</p>
${statusLine(notice)}
${errorBox(error)}
${applies(settings)}
<section aria-labelledby="own-title">
<h2 id="own-title">Your own provider</h2>
<form method="post" action="/dashboard/brain">
${csrfField(owner.csrf)}
<label for="base-url">Base URL</label>
<input id="base-url" name="base-url" type="url" required maxlength="500" value="${form.baseUrl}" aria-describedby="base-url-hint" autocomplete="off" spellcheck="false">
<p id="base-url-hint" class="note">e.g. <code>https://api.openai.com/v1</code> or <code>http://127.0.0.1:11434/v1</code>.</p>
<label for="model">Model</label>
<input id="model" name="model" type="text" required maxlength="200" value="${form.model}" autocomplete="off" spellcheck="false">
<label for="api-key">API key</label>
<input id="api-key" name="api-key" type="password" maxlength="4000" autocomplete="new-password" aria-describedby="api-key-hint">
<p id="api-key-hint" class="note">${own && settings?.hasApiKey ? 'A key is stored; it is never shown. Leave empty to keep it.' : 'Leave empty to keep the stored key, if any.'} It is stored encrypted.</p>
<label for="no-key"><input type="checkbox" id="no-key" name="no-key" value="on"${form.noKey ? html` checked` : html``}>No API key (a local server that needs none; removes a stored key)</label>
<button type="submit">Save provider</button>
</form>
${remove}
</section>`,
  });
}
