/**
 * Share-state batches: ranges of offsets with one delivery state and delivery count, as the share
 * coordinator stores them (Kafka's `PersisterStateBatch`), and their combination (Kafka 4.3.1's
 * `PersisterStateBatchCombiner`): batches below the start offset are dropped (a batch straddling
 * it is cut), and where batches overlap, each offset keeps the batch with the higher delivery
 * count, then the higher delivery state; adjacent ranges with the same count and state are joined.
 */

/** Kafka's `RecordState` ids. */
export const RecordState = {
  AVAILABLE: 0,
  ACQUIRED: 1,
  ACKNOWLEDGED: 2,
  ARCHIVING: 3,
  ARCHIVED: 4,
} as const;

export interface StateBatch {
  firstOffset: bigint;
  lastOffset: bigint;
  deliveryState: number;
  deliveryCount: number;
}

function wins(a: StateBatch, b: StateBatch): boolean {
  return a.deliveryCount !== b.deliveryCount ? a.deliveryCount > b.deliveryCount : a.deliveryState > b.deliveryState;
}

/**
 * `soFar` and `added` combined above `startOffset` (-1n: nothing is pruned), sorted by offset.
 * The result is the same set of (offset, state, count) as Kafka's combiner gives.
 */
export function combineStateBatches(soFar: readonly StateBatch[], added: readonly StateBatch[], startOffset: bigint): StateBatch[] {
  const batches: StateBatch[] = [];
  for (const b of [...soFar, ...added]) {
    if (startOffset !== -1n && b.lastOffset < startOffset) continue;
    batches.push(startOffset !== -1n && b.firstOffset < startOffset ? { ...b, firstOffset: startOffset } : b);
  }
  if (batches.length < 2) return batches.map((b) => ({ ...b }));
  // Sweep the boundaries: between two consecutive boundaries one batch (the winner of those covering it) applies.
  const points = new Set<bigint>();
  for (const b of batches) {
    points.add(b.firstOffset);
    points.add(b.lastOffset + 1n);
  }
  const sorted = [...points].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const result: StateBatch[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    const from = sorted[i]!;
    const to = sorted[i + 1]! - 1n;
    let best: StateBatch | null = null;
    for (const b of batches) {
      if (b.firstOffset <= from && b.lastOffset >= to && (best === null || wins(b, best))) best = b;
    }
    if (best === null) continue;
    const last = result[result.length - 1];
    if (last && last.lastOffset + 1n === from && last.deliveryCount === best.deliveryCount && last.deliveryState === best.deliveryState) {
      last.lastOffset = to;
    } else {
      result.push({ firstOffset: from, lastOffset: to, deliveryState: best.deliveryState, deliveryCount: best.deliveryCount });
    }
  }
  return result;
}
