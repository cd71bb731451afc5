/**
 * Sliced loops (src/util/slices.ts) share one budget per turn of the event loop: four loops working
 * at once make turns of about SLICE_BUDGET_MS, not four times that (adversarial trial, session 19:
 * fifty concurrent admin listings added 276 ms to the median Kafka request), and each loop still
 * does at least one item per turn. performance.now() is stubbed: each item takes 1 ms of it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLICE_BUDGET_MS, Slicer, mapInSlices, nextTurn } from '../../src/util/slices.js';

afterEach(() => vi.restoreAllMocks());

describe('Slicer', () => {
  it('gives the loops working at once one budget per turn between them, each loop an item at least', async () => {
    let clock = 5_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    // A turn with no sliced work in it first: the budget starts with the loops.
    await nextTurn();
    await nextTurn();

    const ITEMS = 60;
    const done = [0, 0, 0, 0];
    const turnsWorked = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
    let turn = 0;
    let ticking = true;
    // Once per turn, in its check phase: the clock then, so the work of each turn is the difference.
    const ticks: number[] = [];
    const tick = (): void => {
      ticks.push(clock);
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);

    const loop = async (i: number): Promise<void> => {
      const slicer = new Slicer(1_000_000);
      for (let n = 0; n < ITEMS; n++) {
        if (n > 0) await slicer.next();
        clock += 1;
        done[i]!++;
        turnsWorked[i]!.add(turn);
      }
    };
    await Promise.all([0, 1, 2, 3].map(loop));
    ticking = false;

    expect(done).toEqual([ITEMS, ITEMS, ITEMS, ITEMS]);
    const perTurn = ticks.slice(1).map((t, k) => t - ticks[k]!);
    // The budget, the item that goes past it, and one item of each other loop.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(SLICE_BUDGET_MS + 1 + 3);
    // Every loop moved in every turn until it was done (none waits for the others to finish).
    for (const worked of turnsWorked) {
      const turns = [...worked].sort((a, b) => a - b);
      expect(turns.at(-1)! - turns[0]! + 1).toBe(turns.length);
    }
  });

  it('with budgetEvery, looks at the budget only every that many items: no clock read for fewer, a yield at the first look past it', async () => {
    let clock = 9_000;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    await nextTurn();
    const slicer = new Slicer(1_000_000, 32);
    // 31 items of a whole budget each: no look, no yield.
    const due: boolean[] = [];
    for (let i = 1; i < 32; i++) {
      clock += SLICE_BUDGET_MS;
      due.push(slicer.due());
    }
    expect([due.includes(true), now.mock.calls.length]).toEqual([false, 0]);
    // The 32nd looks (the budget starts now: not spent), the 64th finds it spent.
    expect([slicer.due(), now.mock.calls.length]).toEqual([false, 1]);
    clock += SLICE_BUDGET_MS;
    for (let i = 33; i < 64; i++) expect(slicer.due()).toBe(false);
    expect([slicer.due(), now.mock.calls.length]).toEqual([true, 2]);
    // Counting starts again after a yield; `maxItems` yields whatever the clock.
    const counted = new Slicer(3, 32);
    expect([counted.due(), counted.due(), counted.due(), counted.due()]).toEqual([false, false, true, false]);
  });
});

describe('mapInSlices', () => {
  it('maps a short list of cheap items at once, and yields costly ones once the turn has had its budget', async () => {
    let clock = 9_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    // A turn with no sliced work in it first: the budget starts with the mapping.
    await nextTurn();
    await nextTurn();
    let calls = 0;
    const cheap = mapInSlices([1, 2, 3], 4096, (x) => (calls++, x * 2));
    expect(calls).toBe(3);
    expect(await cheap).toEqual([2, 4, 6]);

    calls = 0;
    // Items of 2 ms each (a 32,000-character id hashed and compared costs about that): the first
    // look at the budget, after 16 items, starts it (the turn had no sliced work before), the
    // second, 16 items (32 ms) later, finds it spent, and the rest wait for later turns.
    const costly = mapInSlices(Array.from({ length: 40 }, (_, i) => i), 4096, (x) => {
      clock += 2;
      calls++;
      return x;
    });
    expect(calls).toBe(32);
    expect(await costly).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(calls).toBe(40);
  });
});
