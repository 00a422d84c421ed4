/**
 * The offline brain's reply (no language model configured at all): the owner's own passages that
 * best match the message (at most OFFLINE_QUOTES, best first), quoted and cited by id, and a plain statement that no model is
 * configured and how to configure one. Nothing is generated or made up; with no match it says so.
 * Returned as the parts the reply streams in (each a delta); the reply is their concatenation.
 */
import type { Passage } from './chat-prompt.ts';

export const OFFLINE_MODEL = 'offline';
/** Passages up to this length are quoted whole. */
export const QUOTE_VERBATIM_MAX_CHARS = 600;

const HOW_TO_CONFIGURE =
  'To get written answers, the owner sets a language-model provider on the dashboard (LLM provider), ' +
  'or the operator sets CHAT_BASE_URL, CHAT_MODEL and CHAT_API_KEY for the whole deployment.';

export function offlineReplyParts(passages: readonly Passage[]): string[] {
  if (passages.length === 0) {
    return [
      "No language model is configured for this brain, and nothing in the owner's knowledge base or memory matches your message.\n\n",
      HOW_TO_CONFIGURE,
    ];
  }
  return [
    "No language model is configured for this brain, so this answer only quotes the owner's own data that best matches your message (full-text search):\n\n",
    ...passages.map((passage) => `${citation(passage)}\n${quote(quoted(passage))}\n\n`),
    HOW_TO_CONFIGURE,
  ];
}

function citation(passage: Passage): string {
  return passage.title === null
    ? `Memory entry [${passage.id}]:`
    : `From “${passage.title}” [${passage.id}]:`;
}

/**
 * A short passage verbatim; a longer one by its best fragments (the search's highlight, which
 * trims at word boundaries), its « » marks made bold and "…" saying that text was left out.
 */
function quoted(passage: Passage): string {
  if (passage.content.length <= QUOTE_VERBATIM_MAX_CHARS) return passage.content;
  return `… ${passage.highlight.replaceAll('«', '**').replaceAll('»', '**')} …`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
