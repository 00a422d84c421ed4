/**
 * The persona an agent follows, chosen where the owner meets the agent: on its row of
 * /dashboard/tokens, on the handshake and device approval forms and on the OAuth consent page
 * (there, the owner is named by `accountId`: the page is not a dashboard page). The personas come from the
 * brain (personasList); the choice is sent as personaAssign with the agent's id in auth's records
 * (`agents.id`), which is exactly what the gateway sends as `pag-agent-id` for every kind of token
 * (introspection's `agent_id`, agents/agent-claims.ts), so the brain finds it for the agent's
 * context and chat.
 *
 * At approval the choice is optional and never holds the approval up: if the brain is unavailable
 * or refuses, the agent exists all the same and the page says its persona was not set.
 */
import type { OwnerPersona } from '@pag/contracts';
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import type { Context } from 'koa';
import type { SafeHtml } from '../interactions/html.ts';
import { html } from '../interactions/html.ts';
import { brainSource } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';

/** The form field of the choice; empty: the default persona. */
export const PERSONA_FIELD = 'persona';

/** The owner's personas, or null when the brain did not answer (the page works without them). */
export async function personaChoices(
  deps: DashboardDeps,
  ctx: Context,
  accountId?: string,
): Promise<OwnerPersona[] | null> {
  try {
    return (await brainSource(deps, ctx, accountId).ask(BrainOwnerEndpoints.personasList, {})).personas;
  } catch (error) {
    if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') {
      deps.logger.info({ err: error }, 'personas unavailable for the persona choice');
      return null;
    }
    throw error;
  }
}

/** The persona assigned to an agent of its own (not the default), by agent id. */
export function assignedPersonas(personas: readonly OwnerPersona[] | null): Map<string, string> {
  return new Map(
    (personas ?? []).flatMap((persona) => persona.agents.map((agentId) => [agentId, persona.id])),
  );
}

export function personaSelect(input: {
  id: string;
  personas: readonly OwnerPersona[];
  /** The persona chosen; '' for the default. */
  selected: string;
  label: string;
}): SafeHtml {
  const fallback = input.personas.find((persona) => persona.isDefault);
  const options = input.personas.map(
    (persona) =>
      html`<option value="${persona.id}"${persona.id === input.selected ? html` selected` : html``}>${persona.name}</option>`,
  );
  return html`<label for="${input.id}">${input.label}</label>
<select id="${input.id}" name="${PERSONA_FIELD}">
<option value=""${input.selected === '' ? html` selected` : html``}>the default${fallback ? ` (${fallback.name})` : ''}</option>
${options}
</select>`;
}

/** A persona select for an approval form, or a note when the personas are unavailable. */
export function approvalPersonaField(id: string, personas: readonly OwnerPersona[] | null): SafeHtml {
  if (personas === null)
    return html`<p class="note">Personas are unavailable right now (the brain did not answer): the agent follows your default persona; choose another later on Tokens and agents.</p>`;
  return personaSelect({ id, personas, selected: '', label: 'Persona (optional)' });
}

/**
 * Assigns the persona chosen at approval (nothing to do for the default). Returns null when done,
 * otherwise the sentence the page shows: the approval stands, the persona was not set.
 */
export async function assignChosenPersona(
  deps: DashboardDeps,
  ctx: Context,
  agentId: string,
  personaId: string,
  accountId?: string,
): Promise<string | null> {
  if (personaId === '') return null;
  const brain = brainSource(deps, ctx, accountId);
  try {
    await brain.ask(BrainOwnerEndpoints.personaAssign, { agentId, personaId });
    await brain.recordEdit({ action: 'persona.assign', target: personaId, agentId });
    return null;
  } catch (error) {
    // Whatever went wrong, the approval stands: say so rather than fail the page.
    const shown = error instanceof AppError && error.expose;
    deps.logger[shown ? 'info' : 'error']({ err: error, agentId }, 'persona not set at approval');
    const why = shown ? error.message : 'the brain could not set it.';
    return `Its persona was not set: ${why} It follows your default persona; choose another on Tokens and agents.`;
  }
}
