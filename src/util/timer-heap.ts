/**
 * The pending timers of the manual clock: a binary min-heap on (due time, scheduling order), so
 * that firing n timers costs O(n log n) however many are pending (a cancelled timer stays in the
 * heap, flagged, and is dropped when it reaches the top).
 */
export interface HeapTimer {
  /** Due time, ms since the epoch. */
  at: number;
  /** Scheduling order: ties on `at` fire in this order. */
  seq: number;
  fn: () => void;
  /** Cancelled or fired. */
  cancelled: boolean;
}

/** Whether `a` fires before `b`. */
export const firesBefore = (a: HeapTimer, b: HeapTimer): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class TimerHeap {
  private heap: HeapTimer[] = [];

  push(entry: HeapTimer): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!firesBefore(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  /** The earliest timer not cancelled, or undefined. */
  peek(): HeapTimer | undefined {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.pop();
    return this.heap[0];
  }

  /** Removes the top entry. */
  pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && firesBefore(h[l]!, h[m]!)) m = l;
      if (r < h.length && firesBefore(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }

  clear(): void {
    this.heap = [];
  }
}
