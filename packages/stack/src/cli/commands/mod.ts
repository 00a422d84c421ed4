import type { Command } from '../command.ts';
import { agentCommands } from './agent.ts';
import { auditList } from './audit-list.ts';
import { auditVerify } from './audit-verify.ts';
import { clientList } from './client-list.ts';
import { connectionCommands } from './connection.ts';
import { connectorCommands } from './connector.ts';
import { deviceCommands } from './device.ts';
import { handshakeCommands } from './handshake.ts';
import { identityCommands } from './identity.ts';
import { keysRotate } from './keys-rotate.ts';
import { knowledgeCommands } from './knowledge.ts';
import { memoryCommands } from './memory.ts';
import { ownerCreate } from './owner-create.ts';
import { personaCommands } from './persona.ts';
import { tokenCommands } from './token.ts';
import { triggerCommands } from './trigger.ts';
import { vaultCommands } from './vault.ts';

/** Every `pag` command, in the order `pag help` lists them. */
export const COMMANDS: readonly Command[] = [
  ownerCreate,
  ...tokenCommands,
  ...agentCommands,
  ...handshakeCommands,
  ...deviceCommands,
  ...connectionCommands,
  ...connectorCommands,
  ...personaCommands,
  ...knowledgeCommands,
  ...identityCommands,
  ...memoryCommands,
  ...triggerCommands,
  auditList,
  auditVerify,
  keysRotate,
  ...vaultCommands,
  clientList,
];
