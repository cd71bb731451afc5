/**
 * The states a classic group went through between two looks at it (src/admin/group-watch.ts), which
 * may be several transitions apart: a look can see PreparingRebalance and the next one Stable, the
 * CompletingRebalance between them unseen. Transitions are Kafka's `ClassicGroupState` valid
 * previous states (Empty <- PreparingRebalance; PreparingRebalance <- Stable, CompletingRebalance,
 * Empty; CompletingRebalance <- PreparingRebalance; Stable <- CompletingRebalance; Dead <- any).
 */
const NEXT_STATES: Readonly<Record<string, readonly string[]>> = {
  Empty: ['PreparingRebalance', 'Dead'],
  PreparingRebalance: ['CompletingRebalance', 'Empty', 'Dead'],
  CompletingRebalance: ['Stable', 'PreparingRebalance', 'Dead'],
  Stable: ['PreparingRebalance', 'Dead'],
  Dead: ['Dead'],
};

/**
 * The shortest sequence of states a classic group can take from `from` to `to`, `to` last and
 * `from` left out: `[to]` for a transition Kafka allows (or states it does not know), more when
 * states in between were not seen (`PreparingRebalance` -> `Stable`: CompletingRebalance, Stable).
 */
export function classicStatePath(from: string, to: string): string[] {
  if (!(from in NEXT_STATES) || !(to in NEXT_STATES) || NEXT_STATES[from]!.includes(to)) return [to];
  const cameFrom = new Map<string, string>([[from, '']]);
  const queue = [from];
  while (queue.length > 0) {
    const state = queue.shift()!;
    for (const next of NEXT_STATES[state]!) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, state);
      if (next === to) {
        const path = [to];
        for (let s = state; s !== from; s = cameFrom.get(s)!) path.unshift(s);
        return path;
      }
      queue.push(next);
    }
  }
  return [to];
}
