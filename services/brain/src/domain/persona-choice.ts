/**
 * Which persona applies to the calling agent: its own persona if the owner gave it one, else the
 * owner's default persona (no agent), else none. A caller without an agent gets the default.
 * The choices are the account's rows of persona_assignments (agentId set) and persona_defaults
 * (agentId null), as PersonaStore.list reads them.
 */

export interface PersonaAssignment {
  /** The persona's id. */
  id: string;
  /** The agent it is assigned to; null for the owner's default persona. */
  agentId: string | null;
}

export function applyingPersonaId(
  personas: readonly PersonaAssignment[],
  callerAgentId: string | null,
): string | null {
  const own = callerAgentId === null ? undefined : personas.find((p) => p.agentId === callerAgentId);
  return (own ?? personas.find((p) => p.agentId === null))?.id ?? null;
}
