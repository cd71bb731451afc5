/**
 * A partition's leader epoch cache (Kafka's `LeaderEpochFileCache`): the epochs its leaders had and
 * the offset each one's first record got, kept in the partition directory as Kafka's
 * `leader-epoch-checkpoint` ("0", the count, then one `<epoch> <start offset>` line per epoch) and,
 * when that file is missing, rebuilt from the batches' partition leader epochs. A new leader epoch is
 * assigned at the log-end offset when a broker becomes leader (`Partition.makeLeader`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileDurably } from '../storage/file-io.js';

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';

/** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1n;

export interface EpochEntry {
  epoch: number;
  startOffset: bigint;
}

export class LeaderEpochCache {
  private entries: EpochEntry[];
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | null,
    entries: EpochEntry[],
  ) {
    this.entries = entries;
  }

  /**
   * The cache of the partition in `dir` (null: in memory): from its checkpoint, else from
   * `recovered` (the first offset of each epoch seen in the log), else epoch 0 from `logEndOffset`.
   */
  static open(dir: string | null, recovered: readonly EpochEntry[], logEndOffset: bigint, persist: boolean): LeaderEpochCache {
    const file = dir !== null && persist ? path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE) : null;
    const fromFile = file ? readCheckpoint(file) : null;
    const entries = fromFile ?? (recovered.length > 0 ? [...recovered] : [{ epoch: 0, startOffset: logEndOffset }]);
    const cache = new LeaderEpochCache(file, entries);
    if (file && fromFile === null) void cache.persist().catch(() => {});
    return cache;
  }

  /** The latest epoch (the current leader's). */
  get latestEpoch(): number {
    return this.entries[this.entries.length - 1]?.epoch ?? 0;
  }

  get all(): readonly EpochEntry[] {
    return this.entries;
  }

  /**
   * A new leader epoch starting at `startOffset` (the LEO), one above the latest; resolves once
   * durable. Epochs starting at or after it go (`LeaderEpochFileCache.assign` keeps start offsets
   * increasing): an epoch that had no records is forgotten, and endOffsetFor answers for it the
   * epoch before it.
   */
  bump(startOffset: bigint): Promise<void> {
    const epoch = this.latestEpoch + 1;
    while (this.entries.length > 0 && this.entries[this.entries.length - 1]!.startOffset >= startOffset) this.entries.pop();
    this.entries.push({ epoch, startOffset });
    return this.persist();
  }

  /** The epoch of the record at `offset` (`epochForOffset`), or -1 below the earliest. */
  epochForOffset(offset: bigint): number {
    let found = UNDEFINED_EPOCH;
    for (const e of this.entries) if (e.startOffset <= offset) found = e.epoch;
    return found;
  }

  /**
   * `LeaderEpochFileCache.endOffsetFor`: for `requested`, the largest epoch at or below it and the
   * start offset of the next epoch (the LEO for the latest epoch); requested above the latest,
   * or undefined: (-1, -1); below the earliest: (requested, the earliest's start offset).
   */
  endOffsetFor(requested: number, logEndOffset: bigint): { epoch: number; endOffset: bigint } {
    const undefinedResult = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requested === UNDEFINED_EPOCH || this.entries.length === 0) return undefinedResult;
    if (requested === this.latestEpoch) return { epoch: requested, endOffset: logEndOffset };
    const higher = this.entries.find((e) => e.epoch > requested);
    if (!higher) return undefinedResult;
    const floor = [...this.entries].reverse().find((e) => e.epoch <= requested);
    return { epoch: floor ? floor.epoch : requested, endOffset: higher.startOffset };
  }

  /** The log start offset moved to `offset` (`truncateFromStartAsyncFlush`): epochs wholly below it go, the one holding it starts there. */
  truncateFromStart(offset: bigint): void {
    let keepFrom = -1;
    this.entries.forEach((e, i) => {
      if (e.startOffset <= offset) keepFrom = i;
    });
    if (keepFrom < 0) return;
    const kept = this.entries.slice(keepFrom);
    kept[0] = { epoch: kept[0]!.epoch, startOffset: offset };
    if (kept.length === this.entries.length && this.entries[0]!.startOffset === offset) return;
    this.entries = kept;
    void this.persist().catch(() => {});
  }

  private persist(): Promise<void> {
    const file = this.file;
    if (file === null) return Promise.resolve();
    const text = ['0', String(this.entries.length), ...this.entries.map((e) => `${e.epoch} ${e.startOffset}`)].join('\n') + '\n';
    const write = this.writing.catch(() => {}).then(() => (fs.existsSync(path.dirname(file)) ? writeFileDurably(file, text) : undefined));
    this.writing = write;
    return write;
  }
}

/** The entries of a `leader-epoch-checkpoint`, or null when it is missing or unreadable. */
function readCheckpoint(file: string): EpochEntry[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n').filter((l) => l !== '');
  if (lines[0] !== '0' || Number(lines[1]) !== lines.length - 2) return null;
  const entries: EpochEntry[] = [];
  for (const line of lines.slice(2)) {
    const m = /^(\d+) (\d+)$/.exec(line);
    if (!m) return null;
    entries.push({ epoch: Number(m[1]), startOffset: BigInt(m[2]!) });
  }
  return entries.length > 0 ? entries : null;
}
