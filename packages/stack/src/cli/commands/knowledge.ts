/**
 * `pag knowledge add|list|remove --owner E …`: the owner's knowledge base, as the dashboard edits it.
 * - add --title T --kind K: the content (markdown) from standard input; K is one of
 *   KNOWLEDGE_KINDS or another lowercase label; prints the new document's id.
 * - list [--q TEXT] [--json]: most recently updated first; with --q the brain's full-text search
 *   (the agents' ?q= and the chat's), best first, with the matching passage.
 * - remove --id ID: deletes one of the owner's documents.
 */
import type { KnowledgeDocument } from '@pag/contracts';
import { BRAIN_PAGE_MAX, KNOWLEDGE_KINDS, KnowledgeSave } from '@pag/contracts';
import type { Command } from '../command.ts';
import { CliError, requireString } from '../command.ts';
import { checkInput, requiredInput, stringOption, withOwnerBrain } from './owner-brain.ts';

/** One line per document: what `pag knowledge list` prints. */
export function documentLine(
  document: Pick<KnowledgeDocument, 'id' | 'kind' | 'title' | 'updatedAt'>,
): string {
  return [document.id, document.kind, JSON.stringify(document.title), `updated ${document.updatedAt}`].join(
    '  ',
  );
}

const knowledgeAdd: Command = {
  name: 'knowledge add',
  usage: `--owner E --title T --kind K   (content on standard input; K: ${KNOWLEDGE_KINDS.join('|')} or a label)`,
  options: { owner: { type: 'string' }, title: { type: 'string' }, kind: { type: 'string' } },
  async run(context) {
    const title = requireString(context, 'title');
    const kind = requireString(context, 'kind');
    const content = await requiredInput(context, 'the content');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      const input = checkInput(
        KnowledgeSave,
        { accountId: owner.id, title, kind, content },
        {
          title: '--title',
          kind: '--kind',
          content: 'standard input (content)',
        },
      );
      const document = await brain.stores.knowledge.create(owner.id, {
        title: input.title,
        kind: input.kind,
        content: input.content,
      });
      context.out(`added ${documentLine(document)}`);
    });
  },
};

const knowledgeList: Command = {
  name: 'knowledge list',
  usage: '--owner E [--q TEXT] [--json]',
  options: { owner: { type: 'string' }, q: { type: 'string' }, json: { type: 'boolean' } },
  async run(context) {
    const q = stringOption(context, 'q');
    if (q !== undefined && q.trim() === '') throw new CliError('--q must have words to search for');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      if (q === undefined) {
        const { documents } = await brain.stores.knowledge.list(owner.id);
        if (context.values.json === true) context.out(JSON.stringify(documents, null, 2));
        else for (const document of documents) context.out(documentLine(document));
        if (documents.length === 0 && context.values.json !== true)
          context.out(`no knowledge documents for ${owner.email}`);
        return;
      }
      const hits = await brain.stores.knowledge.search(owner.id, q, { limit: BRAIN_PAGE_MAX, offset: 0 });
      const documents = hits.map((hit) => ({
        ...hit,
        createdAt: hit.createdAt.toISOString(),
        updatedAt: hit.updatedAt.toISOString(),
      }));
      if (context.values.json === true) {
        context.out(JSON.stringify(documents, null, 2));
        return;
      }
      for (const document of documents)
        context.out(`${documentLine(document)}  ${JSON.stringify(document.highlight)}`);
      if (documents.length === 0) context.out(`no knowledge documents of ${owner.email} match`);
    });
  },
};

const knowledgeRemove: Command = {
  name: 'knowledge remove',
  usage: '--owner E --id ID',
  options: { owner: { type: 'string' }, id: { type: 'string' } },
  async run(context) {
    const id = requireString(context, 'id');
    await withOwnerBrain(context, async ({ owner, brain }) => {
      // Another owner's document is as unknown as one that never existed.
      if (!(await brain.stores.knowledge.delete(owner.id, id)))
        throw new CliError(`no knowledge document ${id} of ${owner.email}`);
      context.out(`removed ${id}`);
    });
  },
};

export const knowledgeCommands: Command[] = [knowledgeAdd, knowledgeList, knowledgeRemove];
