/**
 * The turn budget (server/turn-budget.ts): while connections are arriving, sockets' data beyond a
 * turn's budget waits for a later turn (after another poll, so another accept), in arrival order;
 * without accepts everything runs at once. The clock is performance.now(), stubbed here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCEPTING_MS, TURN_BUDGET_MS, noteAccepted, runBehindWaiting, runInTurn } from '../../src/server/turn-budget.js';

let clock = 0;
const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => vi.restoreAllMocks());

describe('turn budget', () => {
  it('runs every socket read at once when no connection was accepted lately, however long the turn', () => {
    clock = 1_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const ran: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      runInTurn(() => ran.push(name));
      clock += 10 * TURN_BUDGET_MS;
    }
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('runs a timer operation behind the reads that wait (none waiting: at once, even with the budget spent)', async () => {
    clock = 1_500_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    noteAccepted();
    const ran: string[] = [];
    runInTurn(() => ran.push('a'));
    clock += TURN_BUDGET_MS;
    runBehindWaiting(() => ran.push('timer 1')); // nothing waits: the spent budget alone does not hold it
    runInTurn(() => ran.push('b')); // waits for a later turn
    runBehindWaiting(() => ran.push('timer 2'));
    expect(ran).toEqual(['a', 'timer 1']);
    for (let i = 0; i < 4 && ran.length < 4; i++) await nextImmediate();
    expect(ran).toEqual(['a', 'timer 1', 'b', 'timer 2']);
  });

  it('after an accept, runs reads until the turn budget is spent, then the rest after this turn, in order', async () => {
    clock = 2_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    noteAccepted();
    const ran: string[] = [];
    runInTurn(() => ran.push('a'));
    runInTurn(() => ran.push('b'));
    clock += TURN_BUDGET_MS; // a and b took the turn's budget
    runInTurn(() => ran.push('c'));
    runInTurn(() => ran.push('d'));
    expect(ran).toEqual(['a', 'b']);
    // Queued after c and d, an immediate of this turn still runs before them.
    setImmediate(() => ran.push('this turn'));
    await nextImmediate();
    expect(ran).toEqual(['a', 'b', 'this turn']);
    await nextImmediate();
    await nextImmediate();
    expect(ran).toEqual(['a', 'b', 'this turn', 'c', 'd']);
  });

  it('keeps arrival order: a read after the budget is spent waits behind those already waiting, even in a new turn', async () => {
    clock = 3_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    noteAccepted();
    const ran: string[] = [];
    // Each function takes a whole budget: one runs per turn.
    const slow = (name: string) => () => {
      ran.push(name);
      clock += TURN_BUDGET_MS;
    };
    runInTurn(slow('a'));
    runInTurn(slow('b'));
    runInTurn(slow('c'));
    expect(ran).toEqual(['a']);
    for (let i = 0; i < 4 && ran.length < 2; i++) await nextImmediate();
    expect(ran).toEqual(['a', 'b']);
    runInTurn(slow('d'));
    expect(ran).toEqual(['a', 'b']);
    for (let i = 0; i < 12 && ran.length < 4; i++) await nextImmediate();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('stops bounding turns once no connection was accepted for a while', () => {
    clock = 4_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    noteAccepted();
    clock += ACCEPTING_MS + 1;
    const ran: string[] = [];
    for (const name of ['a', 'b']) {
      runInTurn(() => ran.push(name));
      clock += 10 * TURN_BUDGET_MS;
    }
    expect(ran).toEqual(['a', 'b']);
  });
});
