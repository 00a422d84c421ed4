import { describe, expect, test } from '@jest/globals';
import { applyingPersonaId } from './persona-choice.ts';

const personas = [
  { id: 'per_other', agentId: 'ag_other' },
  { id: 'per_default', agentId: null },
  { id: 'per_mine', agentId: 'ag_mine' },
];

describe('the persona that applies', () => {
  test("the agent's own persona wins over the default", () => {
    expect(applyingPersonaId(personas, 'ag_mine')).toBe('per_mine');
  });

  test('an agent without its own persona gets the default, and so does a caller without an agent', () => {
    expect(applyingPersonaId(personas, 'ag_new')).toBe('per_default');
    expect(applyingPersonaId(personas, null)).toBe('per_default');
  });

  test('without a default, only agents with their own persona get one', () => {
    const withoutDefault = personas.filter((p) => p.agentId !== null);
    expect(applyingPersonaId(withoutDefault, 'ag_new')).toBeNull();
    expect(applyingPersonaId(withoutDefault, 'ag_other')).toBe('per_other');
    expect(applyingPersonaId([], null)).toBeNull();
  });
});
