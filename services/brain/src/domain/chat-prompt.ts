/**
 * What the language model gets for one chat message, within a token budget (pure; no I/O):
 *
 * 1. the persona's soul_content as the system message (a neutral one when no persona applies);
 * 2. a second system message with the owner's identity (name, time zone with the current local
 *    time, locale, summary) and the retrieved passages, each labelled with its id;
 * 3. for a trigger run, a third system message with the run's own instructions (what it is, the
 *    services it may call; prompt/run-instructions.ts), always kept;
 * 4. the conversation's earlier messages, then the new message.
 *
 * Budget: tokens are estimated as one per 4 characters plus 4 per message (OpenAI's rule of
 * thumb for English; no tokenizer, since the model behind an OpenAI-compatible endpoint is
 * unknown and each has its own). The persona, the identity, the run's instructions and the new
 * message always go in.
 * Of what is left, the passages (best first, each cut to PASSAGE_MAX_CHARS) take at most half;
 * the history takes the rest, newest turns first, so the oldest turns are dropped first. The
 * sources are the ids of the passages actually given.
 */
import type { ChatSources, Identity, Persona } from '@pag/contracts';

export const PASSAGE_MAX_CHARS = 2_000;
const CHARS_PER_TOKEN = 4;
const MESSAGE_OVERHEAD_TOKENS = 4;

export interface Passage {
  source: 'knowledge' | 'memory';
  id: string;
  /** A knowledge document's title; null for a memory entry. */
  title: string | null;
  content: string;
  /** The matched words between « and » (the search's highlight), for quoting. */
  highlight: string;
  rank: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface PromptInput {
  persona: Persona | null;
  identity: Identity;
  /** Best first. */
  passages: readonly Passage[];
  /** Oldest first. */
  history: readonly { role: 'user' | 'assistant'; content: string }[];
  message: string;
  /** A trigger run's instructions (a system message after the context); none for a chat. */
  instructions?: string | undefined;
  budgetTokens: number;
  now: Date;
}

export interface Prompt {
  messages: ChatMessage[];
  sources: ChatSources;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

export function buildPrompt(input: PromptInput): Prompt {
  const system = input.persona?.soul_content ?? neutralInstructions(input.identity);
  const about = aboutTheOwner(input.identity, input.now);
  const instructions: ChatMessage[] =
    input.instructions === undefined ? [] : [{ role: 'system', content: input.instructions }];
  let left =
    input.budgetTokens -
    estimateTokens(system) -
    estimateTokens(about) -
    estimateTokens(input.message) -
    instructions.reduce((sum, message) => sum + estimateTokens(message.content), 0);

  const given: Passage[] = [];
  let passageBudget = Math.max(0, Math.floor(left / 2));
  for (const passage of input.passages) {
    const cost = estimateTokens(passageText(passage));
    if (cost > passageBudget) continue;
    given.push(passage);
    passageBudget -= cost;
  }
  const context = given.length === 0 ? about : `${about}\n\n${passagesBlock(given)}`;
  left -= estimateTokens(context) - estimateTokens(about);

  const history: ChatMessage[] = [];
  for (let i = input.history.length - 1; i >= 0; i -= 1) {
    const message = input.history[i];
    if (message === undefined) continue;
    const cost = estimateTokens(message.content);
    if (cost > left) break;
    history.unshift(message);
    left -= cost;
  }
  return {
    messages: [
      { role: 'system', content: system },
      { role: 'system', content: context },
      ...instructions,
      ...history,
      { role: 'user', content: input.message },
    ],
    sources: {
      knowledge: given.filter((p) => p.source === 'knowledge').map((p) => p.id),
      memory: given.filter((p) => p.source === 'memory').map((p) => p.id),
    },
  };
}

function neutralInstructions(identity: Identity): string {
  return `You are the personal AI brain of ${identity.name}. Answer their agents from what you are told about ${identity.name} below; say so when you do not know.`;
}

function aboutTheOwner(identity: Identity, now: Date): string {
  const lines = [`About the owner: ${identity.name}.`];
  if (identity.timezone !== null) {
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: identity.timezone,
      dateStyle: 'full',
      timeStyle: 'short',
    }).format(now);
    lines.push(`Time zone: ${identity.timezone} (now ${local} there).`);
  }
  if (identity.locale !== null) lines.push(`Locale: ${identity.locale}.`);
  if (identity.summary !== null) lines.push(`Summary: ${identity.summary}`);
  return lines.join('\n');
}

function passageText(passage: Passage): string {
  const content =
    passage.content.length > PASSAGE_MAX_CHARS
      ? `${passage.content.slice(0, PASSAGE_MAX_CHARS)} …`
      : passage.content;
  const label = passage.title === null ? `[${passage.id}] memory` : `[${passage.id}] ${passage.title}`;
  return `${label}:\n${content}`;
}

function passagesBlock(passages: readonly Passage[]): string {
  return [
    "From the owner's knowledge base and memory (matching the message; cite the [id] you use):",
    ...passages.map(passageText),
  ].join('\n\n');
}
