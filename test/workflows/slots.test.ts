import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/workflows/slots';

/** A task the test settles by hand, which records when it started. */
function tasks(count: number) {
  const started: number[] = [];
  const settle: Array<(ok: boolean) => void> = [];
  const make = (i: number) => () =>
    new Promise<number>((resolve, reject) => {
      started.push(i);
      settle[i] = (ok) => (ok ? resolve(i) : reject(new Error(`task ${i} failed`)));
    });
  return { started, settle, make: Array.from({ length: count }, (_, i) => make(i)) };
}

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('Slots', () => {
  it('Slots: up to the width start at once, in the same turn; each settled task lets the oldest waiting one start', async () => {
    const slots = new Slots(3);
    const { started, settle, make } = tasks(7);
    const results = make.map((task) => slots.run(task));
    expect(started).toEqual([0, 1, 2]);

    settle[1](true);
    await turn();
    expect(started).toEqual([0, 1, 2, 3]);
    // A failed task frees its slot too, and its caller sees the failure.
    settle[0](false);
    settle[2](true);
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await expect(results[0]).rejects.toThrow('task 0 failed');

    for (const i of [5, 3, 4]) settle[i](true);
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    settle[6](true);
    await expect(Promise.all(results.slice(1))).resolves.toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('Slots: never more than the width running, whatever order tasks settle in', async () => {
    const slots = new Slots(4);
    let running = 0;
    let most = 0;
    const all = Array.from({ length: 30 }, (_, i) =>
      slots.run(async () => {
        most = Math.max(most, ++running);
        for (let t = 0; t < (i * 7) % 5; t++) await turn();
        running--;
        return i;
      }),
    );
    expect(await Promise.all(all)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('Slots: a task that throws before it returns a promise frees its slot', async () => {
    const slots = new Slots(1);
    await expect(
      slots.run(() => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });
});
