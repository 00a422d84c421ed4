import type { Command } from '../command.ts';
import { clientList } from './client-list.ts';
import { keysRotate } from './keys-rotate.ts';
import { ownerCreate } from './owner-create.ts';

/** Every `pag` command, in the order `pag help` lists them. */
export const COMMANDS: readonly Command[] = [ownerCreate, keysRotate, clientList];
