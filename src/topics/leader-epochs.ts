/**
 * A partition's leader epoch cache (Kafka's `LeaderEpochFileCache`): the epochs its leaders had and
 * the offset each one's first record got, kept in the partition directory as Kafka's
 * `leader-epoch-checkpoint` ("0", the count, then one `<epoch> <start offset>` line per epoch) and,
 * when that file is missing, rebuilt from the batches' partition leader epochs (epochs newer than the
 * file's, found in batches, are added as Kafka's `LogSegment.recover` assigns them). A new leader
 * epoch is assigned at the log-end offset when a broker becomes leader (`Partition.makeLeader`,
 * `LeaderEpochFileCache.assign`, which writes the checkpoint before the broker leads).
 *
 * Epochs never go backwards: a new epoch is advertised (`latestEpoch`: Metadata, epoch checks,
 * OffsetForLeaderEpoch) only once its checkpoint is durable. Meanwhile it is "staged": batches
 * appended from its start offset on are already stamped with it (`stampEpoch`), and their
 * acknowledgement waits for the checkpoint too (`whenDurable`), so no acknowledged batch carries
 * an epoch a restart would not know.
 *
 * Next to the checkpoint, `partition-leader` ("<epoch> <leader id>", this server's own file) names
 * the broker that led at the latest epoch, so a start that finds another leader (the simulated
 * cluster's leader moves are not kept across restarts: leaders go back to their preferred broker)
 * raises the epoch as every leader change does (`reconcileLeaderSync`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileDurably, writeFileDurablySync } from '../storage/file-io.js';

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
/** The leader of the latest epoch (not a Kafka file: Kafka keeps it in the metadata log). */
export const PARTITION_LEADER_FILE = 'partition-leader';

/** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1n;

export interface EpochEntry {
  epoch: number;
  startOffset: bigint;
}

export class LeaderEpochCache {
  private entries: EpochEntry[];
  /** New epochs whose checkpoint is not durable yet, oldest first (their batches are stamped already). */
  private staged: Array<EpochEntry & { leader: number }> = [];
  private writing: Promise<void> = Promise.resolve();
  private writesInFlight = 0;
  /** The write that makes the staged epochs durable, while one runs. */
  private stagedWrite: Promise<void> | null = null;

  private constructor(
    private readonly file: string | null,
    entries: EpochEntry[],
  ) {
    this.entries = entries;
  }

  /**
   * The cache of the partition in `dir` (null: in memory): from its checkpoint (plus newer epochs
   * found in `recovered`), else from `recovered` (the first offset of each epoch seen in the log),
   * else epoch 0 from `logEndOffset`. `fresh`: a new partition's empty directory (no checkpoint to read).
   */
  static open(dir: string | null, recovered: readonly EpochEntry[], logEndOffset: bigint, persist: boolean, fresh = false): LeaderEpochCache {
    const file = dir !== null && persist ? path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE) : null;
    const fromFile = file && !fresh ? readCheckpoint(file) : null;
    let entries = fromFile ?? (recovered.length > 0 ? [...recovered] : [{ epoch: 0, startOffset: logEndOffset }]);
    if (fromFile !== null) {
      const latest = fromFile[fromFile.length - 1]!.epoch;
      const newer = recovered.filter((e) => e.epoch > latest);
      if (newer.length > 0) entries = [...fromFile.filter((e) => e.startOffset < newer[0]!.startOffset), ...newer];
    }
    const cache = new LeaderEpochCache(file, entries);
    if (file && (fromFile === null || entries !== fromFile)) void cache.persist().catch(() => {});
    return cache;
  }

  /** The latest durable epoch: the current leader's, as Metadata and the epoch checks see it. */
  get latestEpoch(): number {
    return this.entries[this.entries.length - 1]?.epoch ?? 0;
  }

  /** The epoch stamped on batches appended now: the newest staged one, else the latest. */
  get stampEpoch(): number {
    return this.staged[this.staged.length - 1]?.epoch ?? this.latestEpoch;
  }

  get all(): readonly EpochEntry[] {
    return this.entries;
  }

  /**
   * A new leader epoch (`leader` leads from `startOffset`, the LEO), one above the newest: stamped
   * on batches at once, advertised once its checkpoint is durable, when this resolves. A failed
   * write rejects and leaves it staged; the next `whenDurable` writes it again.
   */
  bump(startOffset: bigint, leader: number): Promise<void> {
    this.staged.push({ epoch: this.stampEpoch + 1, startOffset, leader });
    this.stagedWrite = null;
    return this.whenDurable();
  }

  /**
   * As `bump`, but written before this returns when no other write is in flight (a single leader
   * move: the new leader and its epoch are seen together, as Kafka publishes both in one record);
   * otherwise (or when that write fails) staged as `bump` does.
   */
  bumpNow(startOffset: bigint, leader: number): Promise<void> {
    if (this.file === null || this.writesInFlight > 0 || this.staged.length > 0) return this.bump(startOffset, leader);
    const entry = { epoch: this.latestEpoch + 1, startOffset };
    try {
      writeFileDurablySync(this.file, checkpointText(assign(this.entries, [entry])));
      writeFileDurablySync(path.join(path.dirname(this.file), PARTITION_LEADER_FILE), `${entry.epoch} ${leader}\n`);
    } catch {
      return this.bump(startOffset, leader); // staged: advertised once a write succeeds
    }
    this.entries = assign(this.entries, [entry]);
    return Promise.resolve();
  }

  /**
   * Resolves once the epochs staged so far are durable (at once when none is): batches stamped with
   * a staged epoch are acknowledged only then.
   */
  whenDurable(): Promise<void> {
    const newest = this.staged[this.staged.length - 1];
    if (newest === undefined) return Promise.resolve();
    if (this.stagedWrite) return this.stagedWrite;
    const write = this.persist(newest).then(() => {
      const done = this.staged.filter((e) => e.epoch <= newest.epoch);
      this.staged = this.staged.filter((e) => e.epoch > newest.epoch);
      this.entries = assign(this.entries, done.map(({ epoch, startOffset }) => ({ epoch, startOffset })));
      if (this.stagedWrite === write) this.stagedWrite = null;
    });
    this.stagedWrite = write;
    write.catch(() => {
      if (this.stagedWrite === write) this.stagedWrite = null;
    });
    return write;
  }

  /**
   * At start, before anything is served: when the broker leading now is not the one recorded for the
   * latest epoch (the leader changed at the restart, or the process died mid leader change), a new
   * epoch starts at `logEndOffset`, written synchronously. A partition that never changed leader
   * (epoch 0, nothing recorded) keeps its epoch. Returns whether the epoch was raised.
   */
  reconcileLeaderSync(leader: number, logEndOffset: bigint): boolean {
    // Nothing is recorded for epoch 0 (the leader file is written with each new epoch, after its checkpoint).
    if (this.file === null || this.latestEpoch === 0) return false;
    const recorded = readLeaderRecord(path.join(path.dirname(this.file), PARTITION_LEADER_FILE));
    const latest = this.latestEpoch;
    if (recorded !== null && recorded.epoch === latest && recorded.leader === leader) return false;
    this.entries = assign(this.entries, [{ epoch: latest + 1, startOffset: logEndOffset }]);
    writeFileDurablySync(this.file, checkpointText(this.entries));
    writeFileDurablySync(path.join(path.dirname(this.file), PARTITION_LEADER_FILE), `${latest + 1} ${leader}\n`);
    return true;
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

  /** Resolves once every checkpoint write started so far has ended (a closing store waits for it). */
  settled(): Promise<void> {
    return this.writing.catch(() => {});
  }

  /**
   * Writes the checkpoint (the durable epochs, and the staged ones up to `upTo` when given) and then
   * `upTo`'s leader; one write at a time, each reading the entries when it runs.
   */
  private persist(upTo?: { epoch: number; leader: number }): Promise<void> {
    const file = this.file;
    if (file === null) return Promise.resolve();
    this.writesInFlight++;
    const write = this.writing.catch(() => {}).then(async () => {
      if (!fs.existsSync(path.dirname(file))) return; // the topic was deleted
      const staged = upTo ? this.staged.filter((e) => e.epoch <= upTo.epoch) : [];
      await writeFileDurably(file, checkpointText(assign(this.entries, staged)));
      if (upTo) await writeFileDurably(path.join(path.dirname(file), PARTITION_LEADER_FILE), `${upTo.epoch} ${upTo.leader}\n`);
    });
    this.writing = write;
    const settled = (): void => void this.writesInFlight--;
    write.then(settled, settled);
    return write;
  }
}

/**
 * `entries` with `added` appended as `LeaderEpochFileCache.assign` does: start offsets only grow, so
 * an epoch starting at or after a new one's start offset (an epoch that had no records) goes.
 */
function assign(entries: readonly EpochEntry[], added: ReadonlyArray<{ epoch: number; startOffset: bigint }>): EpochEntry[] {
  const result = [...entries];
  for (const { epoch, startOffset } of added) {
    while (result.length > 0 && result[result.length - 1]!.startOffset >= startOffset) result.pop();
    result.push({ epoch, startOffset });
  }
  return result;
}

function checkpointText(entries: readonly EpochEntry[]): string {
  return ['0', String(entries.length), ...entries.map((e) => `${e.epoch} ${e.startOffset}`)].join('\n') + '\n';
}

/** The `partition-leader` record, or null when missing or unreadable. */
function readLeaderRecord(file: string): { epoch: number; leader: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const m = /^(\d+) (-?\d+)\n?$/.exec(text);
  return m ? { epoch: Number(m[1]), leader: Number(m[2]) } : null;
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
