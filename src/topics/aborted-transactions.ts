/**
 * A partition's aborted transactions (Kafka's `TransactionIndex`, the `.txnindex` file of each
 * segment, and `AbortedTxn`): one entry per aborted non-empty transaction, written when its ABORT
 * marker is appended, in marker order. Kafka keeps one index per segment, holding the aborts whose
 * marker landed in it; one list in marker order searched from a segment's base offset answers the
 * same. Kept in memory and rebuilt from the log at start (Kafka rebuilds a lost index the same way,
 * in `LogSegment.recover`).
 */

/** Kafka's `AbortedTxn`. */
export interface AbortedTxn {
  producerId: bigint;
  /** First offset of the transaction in this partition. */
  firstOffset: bigint;
  /** Offset of its ABORT marker. */
  lastOffset: bigint;
  /** The partition's last stable offset once the marker was written. */
  lastStableOffset: bigint;
}

export class AbortedTransactionIndex {
  private entries: AbortedTxn[] = [];

  append(entry: AbortedTxn): void {
    this.entries.push(entry);
  }

  /**
   * Kafka's `TransactionIndex.collectAbortedTxns` over the segments from the one based at
   * `segmentBaseOffset` on (`LocalLog.collectAbortedTransactions`): the aborted transactions that
   * overlap [fetchOffset, upperBoundOffset) — marker at or after `fetchOffset`, first offset before
   * `upperBoundOffset` — stopping after the first entry whose last stable offset reaches the bound.
   */
  collect(segmentBaseOffset: bigint, fetchOffset: bigint, upperBoundOffset: bigint): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    for (const e of this.entries) {
      if (e.lastOffset < segmentBaseOffset) continue;
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) out.push(e);
      if (e.lastStableOffset >= upperBoundOffset) break;
    }
    return out;
  }

  /** Forgets the entries whose marker lies below `offset` (their segments were deleted). */
  dropBelow(offset: bigint): void {
    const keep = this.entries.findIndex((e) => e.lastOffset >= offset);
    this.entries = keep < 0 ? [] : this.entries.slice(keep);
  }

  clear(): void {
    this.entries = [];
  }

  /** Every entry, in marker order (tests, dump tools). */
  all(): readonly AbortedTxn[] {
    return this.entries;
  }
}
