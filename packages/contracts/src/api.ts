/**
 * Constants every process agrees on: the version prefix of the HTTP interface and the conduct
 * rule the spec makes the service repeat in its discovery and quick-start documents (`important`).
 */

/** Every endpoint path begins with this prefix exactly once; a doubled prefix is ROUTE_NOT_FOUND. */
export const API_PREFIX = '/api/v1';

/** The spec's agent conduct rule, word for word in meaning, as one sentence. */
export const AGENT_CONDUCT_RULE =
  'Before performing any action, describe what you intend to do and wait for explicit human approval; this applies to every request.';
