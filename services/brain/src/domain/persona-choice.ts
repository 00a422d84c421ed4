/**
 * Which persona applies to the calling agent: its own persona if the owner gave it one, else the
 * owner's default persona (no agent), else none. A caller without an agent gets the default.
 */

export interface PersonaAssignment {
  id: string;
  /** The agent the persona applies to; null for the owner's default persona. */
  agentId: string | null;
}

export function applyingPersonaId(
  personas: readonly PersonaAssignment[],
  callerAgentId: string | null,
): string | null {
  const own = callerAgentId === null ? undefined : personas.find((p) => p.agentId === callerAgentId);
  return (own ?? personas.find((p) => p.agentId === null))?.id ?? null;
}
