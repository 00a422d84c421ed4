import { describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { OwnerGate } from './owner-gate.ts';

const A = 'account-a';
const B = 'account-b';

describe('OwnerGate', () => {
  test('a chat over the cap is refused at once with RATE_LIMITED and Retry-After', () => {
    const gate = new OwnerGate(1);
    gate.enter(A);
    expect(() => gate.enter(A)).toThrow(AppError);
    expect(() => gate.enter(B)).not.toThrow();
  });

  test('a run waits for a slot and takes it when one is freed', async () => {
    const gate = new OwnerGate(1);
    const chat = gate.enter(A);
    let entered = false;
    const waiting = gate.enterWhenFree(A, Date.now() + 10_000).then((release) => {
      entered = true;
      return release;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(entered).toBe(false);
    chat();
    const release = await waiting;
    expect(entered).toBe(true);
    // The run holds the one slot now: a chat is refused until it leaves.
    expect(() => gate.enter(A)).toThrow(AppError);
    release();
    expect(() => gate.enter(A)).not.toThrow();
  });

  test('one freed slot wakes one waiter; the next waits for the next', async () => {
    const gate = new OwnerGate(1);
    const first = gate.enter(A);
    const order: string[] = [];
    const one = gate.enterWhenFree(A, Date.now() + 10_000).then((release) => {
      order.push('one');
      return release;
    });
    const two = gate.enterWhenFree(A, Date.now() + 10_000).then((release) => {
      order.push('two');
      return release;
    });
    first();
    const releaseOne = await one;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['one']);
    releaseOne();
    (await two)();
    expect(order).toEqual(['one', 'two']);
  });

  test('a run that gets no slot before its deadline is RATE_LIMITED, and leaves no waiter behind', async () => {
    const gate = new OwnerGate(1);
    const chat = gate.enter(A);
    await expect(gate.enterWhenFree(A, Date.now() + 30)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    chat();
    // The slot is free again for anyone.
    gate.enter(A)();
    await expect(gate.enterWhenFree(A, Date.now() - 1)).resolves.toBeInstanceOf(Function);
  });
});
