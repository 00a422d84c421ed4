/**
 * `pag persona list|set|assign --owner E …`: the owner's personas, as the dashboard edits them.
 * - list [--json]: oldest first, the default marked, with the agents each is assigned to.
 * - set --name N [--description D] [--default]: soul_content (markdown) from standard input;
 *   creates the persona named N, or changes the one of that name; --default makes it the default.
 * - assign --agent ID (--persona N | --default): gives one of the owner's agents its own persona,
 *   or lets it follow the default again.
 * A fresh account gets its default persona first, as on the brain's first read.
 */

import type { OwnerPersona } from '@pag/contracts';
import { PersonaAssign, PersonaSave } from '@pag/contracts';
import type { Command } from '../command.ts';
import { CliError, requireString } from '../command.ts';
import { checkInput, requiredInput, stringOption, withOwnerBrain } from './owner-brain.ts';

const OPTION_OF = {
  name: '--name',
  description: '--description',
  soul_content: 'standard input (soul_content)',
};

/** One line per persona: what `pag persona list` prints. */
export function personaLine(persona: OwnerPersona): string {
  return [
    persona.id,
    JSON.stringify(persona.name),
    persona.isDefault ? 'default' : '-',
    `agents ${persona.agents.length === 0 ? 'none' : persona.agents.join(',')}`,
    `updated ${persona.updatedAt}`,
  ].join('  ');
}

const personaList: Command = {
  name: 'persona list',
  usage: '--owner E [--json]',
  options: { owner: { type: 'string' }, json: { type: 'boolean' } },
  async run(context) {
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const personas = await brain.stores.personas.ownerList(owner.id);
      if (context.values.json === true) context.out(JSON.stringify(personas, null, 2));
      else for (const persona of personas) context.out(personaLine(persona));
    });
  },
};

const personaSet: Command = {
  name: 'persona set',
  usage: '--owner E --name N [--description D] [--default]   (soul_content on standard input)',
  options: {
    owner: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    default: { type: 'boolean' },
  },
  async run(context) {
    const name = requireString(context, 'name');
    const soulContent = await requiredInput(context, 'the soul_content');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const description = stringOption(context, 'description');
      const input = checkInput(
        PersonaSave,
        {
          accountId: owner.id,
          name,
          soul_content: soulContent,
          ...(description === undefined ? {} : { description: description === '' ? null : description }),
          makeDefault: context.values.default === true,
        },
        OPTION_OF,
      );
      const existing = (await brain.stores.personas.ownerList(owner.id)).find((p) => p.name === input.name);
      const saved = await brain.stores.personas.save(owner.id, existing?.id, {
        name: input.name,
        description: input.description,
        soulContent: input.soul_content,
        makeDefault: input.makeDefault ?? false,
      });
      // Only a concurrent edit gets here (the name was looked up just before).
      if (saved === 'not-found' || saved === 'name-taken')
        throw new CliError(`the persona "${input.name}" changed meanwhile; run the command again`);
      context.out(`${existing === undefined ? 'created' : 'updated'} ${personaLine(saved)}`);
    });
  },
};

const personaAssign: Command = {
  name: 'persona assign',
  usage: '--owner E --agent ID (--persona N | --default)',
  options: {
    owner: { type: 'string' },
    agent: { type: 'string' },
    persona: { type: 'string' },
    default: { type: 'boolean' },
  },
  async run(context) {
    const agentId = requireString(context, 'agent');
    const personaName = stringOption(context, 'persona');
    const toDefault = context.values.default === true;
    if ((personaName === undefined) === !toDefault)
      throw new CliError('give either --persona N (its own persona) or --default (follow the default)');
    await withOwnerBrain(context, async ({ owner, brain, auth }) => {
      // The owner's own agents only: another owner's agent id is as unknown as a made-up one.
      const agents = await auth.agents.list(owner.id);
      if (!agents.some((agent) => agent.id === agentId))
        throw new CliError(`no agent ${agentId} of ${owner.email} (pag agent list shows them)`);
      let personaId: string | null = null;
      if (personaName !== undefined) {
        const persona = (await brain.stores.personas.ownerList(owner.id)).find((p) => p.name === personaName);
        if (persona === undefined)
          throw new CliError(`no persona named "${personaName}" for ${owner.email} (pag persona list)`);
        personaId = persona.id;
      }
      const input = checkInput(
        PersonaAssign,
        { accountId: owner.id, agentId, personaId },
        { agentId: '--agent' },
      );
      // The persona was just read from this account: only a concurrent delete makes it unknown.
      if ((await brain.stores.personas.assign(owner.id, input.agentId, input.personaId)) !== 'assigned')
        throw new CliError(`the persona "${personaName}" was deleted meanwhile`);
      context.out(
        personaName === undefined
          ? `agent ${agentId} follows the default persona`
          : `agent ${agentId} has the persona "${personaName}"`,
      );
    });
  },
};

export const personaCommands: Command[] = [personaList, personaSet, personaAssign];
