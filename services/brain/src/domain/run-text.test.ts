import { describe, expect, test } from '@jest/globals';
import { TRIGGER_OUTPUT_MAX_BYTES } from '@pag/contracts';
import { runOutput } from './run-text.ts';

describe('runOutput', () => {
  test('keeps an output within the limit as it is', () => {
    expect(runOutput('# Digest\n\nAll quiet.')).toBe('# Digest\n\nAll quiet.');
  });

  test('cuts a longer one at a character boundary within the limit, and says so', () => {
    const long = 'ä€😀'.repeat(TRIGGER_OUTPUT_MAX_BYTES);
    const kept = runOutput(long);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(TRIGGER_OUTPUT_MAX_BYTES);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(TRIGGER_OUTPUT_MAX_BYTES - 100);
    expect(kept).toMatch(/\[Output cut: it exceeded 65536 bytes\.\]$/);
    expect(kept).not.toContain('\uFFFD');
    expect(long.startsWith(kept.slice(0, kept.indexOf('\n\n[Output cut')))).toBe(true);
  });

  test('makes it storable and never empty', () => {
    expect(runOutput('a\u0000b\ud800')).toBe('a\uFFFDb\uFFFD');
    expect(runOutput('  \n')).toBe('[The model returned no text.]');
  });
});
