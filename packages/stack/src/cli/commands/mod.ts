import type { Command } from '../command.ts';
import { ownerCreate } from './owner-create.ts';

/** Every `pag` command, in the order `pag help` lists them. */
export const COMMANDS: readonly Command[] = [ownerCreate];
