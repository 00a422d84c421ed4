import { describe, expect, test } from '@jest/globals';
import type { Passage } from './chat-prompt.ts';
import { buildPrompt, estimateTokens, PASSAGE_MAX_CHARS } from './chat-prompt.ts';

const identity = {
  name: 'Alice',
  email: null,
  timezone: 'Europe/Berlin',
  locale: 'de-DE',
  summary: 'Engineer.',
};
const persona = { id: 'per_1', name: 'P', description: null, soul_content: 'Be brief.', active: true };
const passage = (id: string, content: string, rank: number): Passage => ({
  source: id.startsWith('doc') ? 'knowledge' : 'memory',
  id,
  title: id.startsWith('doc') ? `Title ${id}` : null,
  content,
  highlight: content,
  rank,
});
const base = {
  persona,
  identity,
  passages: [],
  history: [],
  message: 'Question?',
  budgetTokens: 8_000,
  now: new Date('2026-11-24T09:00:00Z'),
};

describe('buildPrompt', () => {
  test('soul_content is the system message; the identity (with local time) and passages follow; sources are the ids given', () => {
    const prompt = buildPrompt({
      ...base,
      passages: [passage('doc_a', 'Likes tea.', 0.5), passage('mem_b', 'Met Bob.', 0.2)],
    });
    expect(prompt.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(prompt.messages[1]?.content).toContain('About the owner: Alice.');
    expect(prompt.messages[1]?.content).toContain(
      'Time zone: Europe/Berlin (now Tuesday, 24 November 2026 at 10:00 there).',
    );
    expect(prompt.messages[1]?.content).toContain('[doc_a] Title doc_a:\nLikes tea.');
    expect(prompt.messages[1]?.content).toContain('[mem_b] memory:\nMet Bob.');
    expect(prompt.messages.at(-1)).toEqual({ role: 'user', content: 'Question?' });
    expect(prompt.sources).toEqual({ knowledge: ['doc_a'], memory: ['mem_b'] });
  });

  test('without a persona a neutral instruction names the owner', () => {
    expect(buildPrompt({ ...base, persona: null }).messages[0]?.content).toContain(
      'personal AI brain of Alice',
    );
  });

  test('over budget, the oldest turns are dropped first and the newest kept', () => {
    const turn = (i: number) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `turn ${i} ${'x'.repeat(396)}`,
    });
    const history = Array.from({ length: 10 }, (_, i) => turn(i));
    const fixed =
      estimateTokens('Be brief.') +
      estimateTokens(buildPrompt(base).messages[1]?.content ?? '') +
      estimateTokens('Question?');
    // Room for six turns of about 105 tokens (no passages: the history gets all that is left).
    const prompt = buildPrompt({ ...base, history, budgetTokens: fixed + 660 });
    const kept = prompt.messages.slice(2, -1).map((m) => m.content.split(' ').slice(0, 2).join(' '));
    expect(kept).toEqual(['turn 4', 'turn 5', 'turn 6', 'turn 7', 'turn 8', 'turn 9']);
  });

  test('passages take at most half of what is left, best first; a long one is cut', () => {
    const long = passage('doc_long', 'y'.repeat(PASSAGE_MAX_CHARS * 3), 0.9);
    const prompt = buildPrompt({
      ...base,
      passages: [long, passage('doc_b', 'z'.repeat(4_000), 0.5), passage('mem_c', 'short', 0.1)],
      budgetTokens: 2_000,
    });
    expect(prompt.messages[1]?.content).toContain(`${'y'.repeat(PASSAGE_MAX_CHARS)} …`);
    expect(prompt.messages[1]?.content).not.toContain('y'.repeat(PASSAGE_MAX_CHARS + 1));
    // doc_b (about 1,000 tokens) no longer fits the half; the short one still does.
    expect(prompt.sources).toEqual({ knowledge: ['doc_long'], memory: ['mem_c'] });
  });
});
