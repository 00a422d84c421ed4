/**
 * The agent_auth block: how an agent registers itself, with every field and enumeration of the
 * spec, every URL absolute under PUBLIC_URL. Checked against the contract's schema when built, so
 * a field can never go missing silently.
 */
import {
  AgentAuthBlock,
  ANONYMOUS_CREDENTIAL_TYPES,
  CREDENTIAL_TYPES,
  IDENTITY_TYPES,
  REGISTRATION_METHODS,
} from '@pag/contracts';

export function agentAuthBlock(publicUrl: string): AgentAuthBlock {
  return AgentAuthBlock.parse({
    skill: `${publicUrl}/auth.md`,
    register_uri: `${publicUrl}/signup`,
    identity_endpoint: `${publicUrl}/api/v1/agentic/asc/register`,
    claim_uri: `${publicUrl}/dashboard/devices`,
    claim_endpoint: `${publicUrl}/dashboard/devices/claim`,
    identity_types_supported: [...IDENTITY_TYPES],
    anonymous: { credential_types_supported: [...ANONYMOUS_CREDENTIAL_TYPES] },
    credential_types_supported: [...CREDENTIAL_TYPES],
    registration_methods: [...REGISTRATION_METHODS],
    revocation_uri: `${publicUrl}/dashboard/tokens`,
  });
}
