/**
 * What a trigger needs of its creator, at creation and again before every run: `chat` (a run is a
 * prompt to the brain) and the read scope of every service its prompt may use. A run never has
 * more than its trigger's scopes (those of the creating token), narrowed to what the creating
 * agent still holds.
 */
import { scopeGrants } from '@pag/contracts';

export function requiredScopes(services: readonly string[]): string[] {
  return ['chat', ...services.map((service) => `services:${service}:read`)];
}

/** The first required scope `granted` does not cover; undefined when it covers them all. */
export function firstMissingScope(
  granted: readonly string[],
  services: readonly string[],
): string | undefined {
  return requiredScopes(services).find((scope) => !scopeGrants(granted, scope));
}

/**
 * What both the trigger's scopes and the agent's current scopes grant, as scopes: each scope of
 * either list that the other list grants too (a trigger made with `full` by an agent now holding
 * only `chat` runs with `chat`). What a run may use.
 */
export function narrowedScopes(triggerScopes: readonly string[], agentScopes: readonly string[]): string[] {
  const both = [
    ...triggerScopes.filter((scope) => scopeGrants(agentScopes, scope)),
    ...agentScopes.filter((scope) => scopeGrants(triggerScopes, scope)),
  ];
  return [...new Set(both)];
}
