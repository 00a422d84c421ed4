import { describe, expect, test } from '@jest/globals';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  test('retries a failing assertion until it passes, and resolves to what the check returned', async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        calls += 1;
        expect(calls).toBeGreaterThanOrEqual(3);
        return `passed on call ${calls}`;
      },
      { what: 'the third call', intervalMs: 1 },
    );
    expect(value).toBe('passed on call 3');
    expect(calls).toBe(3);
  });

  test('a condition counts as failed while it returns false; async checks are awaited', async () => {
    let calls = 0;
    await eventually(async () => ++calls === 4, { what: 'four calls', intervalMs: 1 });
    expect(calls).toBe(4);
  });

  test('after the timeout: the last failure, with what it waited for, as message and cause', async () => {
    let calls = 0;
    const started = performance.now();
    const error = await eventually(
      () => {
        calls += 1;
        throw new Error(`failure number ${calls}`);
      },
      { what: 'the replica rejects the token', timeoutMs: 100, intervalMs: 5 },
    ).catch((e: unknown) => e as Error);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    expect(calls).toBeGreaterThan(1);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('waiting until the replica rejects the token');
    expect(error.message).toContain(`last failure: failure number ${calls}`);
    expect((error.cause as Error).message).toBe(`failure number ${calls}`);
  });

  test('a condition still false at the timeout says so', async () => {
    await expect(eventually(() => false, { what: 'never', timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      'waiting until never; last failure: the condition was still false',
    );
  });
});
