/**
 * The pages of /dashboard/personas: the owner's personas (the default marked, the agents each is
 * assigned to), the form that creates one, the form that edits one, and the step that confirms a
 * deletion. Plain HTML, every field labelled, no script.
 */
import type { OwnerPersona } from '@pag/contracts';
import { SOUL_CONTENT_MAX_BYTES } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { statusLine, textArea, when } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

const CURRENT = '/dashboard/personas';

/** What the owner typed, kept to fill the form again after a mistake. */
export interface PersonaFormValues {
  name: string;
  description: string;
  soul: string;
  makeDefault: boolean;
}

export const EMPTY_PERSONA_FORM: PersonaFormValues = {
  name: '',
  description: '',
  soul: '',
  makeDefault: false,
};

export function personaFormOf(persona: OwnerPersona): PersonaFormValues {
  return {
    name: persona.name,
    description: persona.description ?? '',
    soul: persona.soul_content,
    makeDefault: persona.isDefault,
  };
}

function personaFields(form: PersonaFormValues, showDefault: boolean): SafeHtml {
  return html`<label for="name">Name</label>
<input id="name" name="name" type="text" required maxlength="80" value="${form.name}" autocomplete="off">
<label for="description">Description</label>
<input id="description" name="description" type="text" maxlength="500" value="${form.description}" aria-describedby="description-hint" autocomplete="off">
<p id="description-hint" class="note">Optional: a line for you, e.g. “for coding agents”.</p>
${textArea({
  id: 'soul_content',
  label: 'Instructions (soul_content, markdown)',
  value: form.soul,
  rows: 16,
  required: true,
  hint: `What the agent is told to be and how to behave; every agent with this persona gets it in its context, and chat uses it as system instructions. At most ${SOUL_CONTENT_MAX_BYTES / 1024} KiB.`,
})}
${
  showDefault
    ? html`<label for="make-default"><input type="checkbox" id="make-default" name="make-default" value="on"${form.makeDefault ? html` checked` : html``}>Make it the default (for every agent without a persona of its own)</label>`
    : html``
}`;
}

export interface PersonasPageInput {
  owner: OwnerState;
  /** null: the brain did not answer. */
  personas: readonly OwnerPersona[] | null;
  /** Agent names by id, from auth's own records. */
  agentNames: ReadonlyMap<string, string>;
  form: PersonaFormValues;
  error?: string | undefined;
  /** The error of a list action (make default, delete), shown above the list. */
  listError?: string | undefined;
  notice?: string | undefined;
}

function agentsCell(persona: OwnerPersona, names: ReadonlyMap<string, string>): SafeHtml {
  if (persona.agents.length === 0)
    return persona.isDefault ? html`<span class="note">every agent without its own</span>` : html`—`;
  return html`${persona.agents.map((id) => html`${names.get(id) ?? id}<br>`)}`;
}

function personaRow(persona: OwnerPersona, input: PersonasPageInput): SafeHtml {
  const csrf = input.owner.csrf;
  const id = encodeURIComponent(persona.id);
  const makeDefault = persona.isDefault
    ? html``
    : html`<form method="post" action="/dashboard/personas/${id}/default" class="inline">
${csrfField(csrf)}
<button type="submit" aria-label="Make ${persona.name} the default">Make default</button>
</form>`;
  return html`<tr id="persona-${persona.id}">
<td><strong>${persona.name}</strong>${persona.isDefault ? html` <span class="ok">default</span>` : html``}<br><span class="note">${persona.description ?? ''}</span></td>
<td>${agentsCell(persona, input.agentNames)}</td>
<td>${when(persona.updatedAt)}</td>
<td><a href="/dashboard/personas/${id}" aria-label="Edit ${persona.name}">Edit</a>
${makeDefault}
<a href="/dashboard/personas/${id}/delete" aria-label="Delete ${persona.name}">Delete</a></td>
</tr>`;
}

function personaTable(input: PersonasPageInput): SafeHtml {
  if (input.personas === null) return html``;
  if (input.personas.length === 0) return html`<p>No persona yet. Create one below.</p>`;
  return html`<table>
<caption class="note">Oldest first. An agent follows the default unless you choose another persona for it on <a href="/dashboard/tokens">Tokens and agents</a>.</caption>
<thead><tr><th scope="col">Persona</th><th scope="col">Agents</th><th scope="col">Changed</th><th scope="col"><span class="note">Actions</span></th></tr></thead>
<tbody>${input.personas.map((persona) => personaRow(persona, input))}</tbody>
</table>`;
}

export function personasPage(input: PersonasPageInput): string {
  const { owner } = input;
  return dashboardPage({
    title: 'Personas',
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>A persona tells your agents who to be: its instructions reach every agent it applies to
(in <code>GET /api/v1/gateway/context</code>, and as the system instructions of chat).</p>
${statusLine(input.notice)}
${errorBox(input.listError)}
<section aria-labelledby="personas-title">
<h2 id="personas-title">Your personas</h2>
${personaTable(input)}
</section>
<section aria-labelledby="create-title">
<h2 id="create-title">Create a persona</h2>
${errorBox(input.error)}
<form method="post" action="/dashboard/personas">
${csrfField(owner.csrf)}
${personaFields(input.form, true)}
<button type="submit">Create persona</button>
</form>
</section>`,
  });
}

export interface PersonaEditInput {
  owner: OwnerState;
  id: string;
  form: PersonaFormValues;
  /** Whether it is the default now (then "make default" is not offered). */
  isDefault: boolean;
  error?: string | undefined;
}

export function personaEditPage(input: PersonaEditInput): string {
  const { owner } = input;
  return dashboardPage({
    title: `Persona ${input.form.name}`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`${errorBox(input.error)}
<form method="post" action="/dashboard/personas/${encodeURIComponent(input.id)}">
${csrfField(owner.csrf)}
${personaFields(input.form, !input.isDefault)}
<button type="submit">Save persona</button>
</form>
<p><a href="/dashboard/personas">All personas</a></p>`,
  });
}

export interface PersonaDeleteInput {
  owner: OwnerState;
  persona: OwnerPersona;
  agentNames: ReadonlyMap<string, string>;
}

export function personaDeletePage({ owner, persona, agentNames }: PersonaDeleteInput): string {
  const assigned =
    persona.agents.length === 0
      ? html``
      : html`<p>It is assigned to ${persona.agents.map((id) => agentNames.get(id) ?? id).join(', ')}: they follow the default again.</p>`;
  return dashboardPage({
    title: `Delete persona ${persona.name}?`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Deleting is final: its instructions are gone.</p>
${assigned}
<form method="post" action="/dashboard/personas/${encodeURIComponent(persona.id)}/delete">
${csrfField(owner.csrf)}
<button type="submit">Delete ${persona.name}</button>
</form>
<p><a href="/dashboard/personas">Keep it</a></p>`,
  });
}
