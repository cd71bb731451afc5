import type { Logger } from 'pino';
import pino from 'pino';
import { BrokerConfig } from '../../src/config.js';
import { GroupLog } from '../../src/coordinator/group-log.js';
import type { CoordinatorRecord, OffsetCommitRecord } from '../../src/coordinator/records.js';
import { decodeRecords, readBatchHeader } from '../../src/records/record-batch.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import type { CleanerStep } from '../../src/storage/log-cleaner.js';
import type { FakeTime } from '../support/fake-time.js';

export const silentLog: Logger = pino({ level: process.env.CLEANER_TEST_LOG ?? 'silent' });

/** A seeded PRNG (mulberry32): the same seed gives the same sequence. */
export { prng as rng } from '../support/prng.js';

export function openGroupLog(
  dataDir: string | null,
  time: FakeTime,
  overrides: Record<string, string | number | boolean> = {},
  onCleanerStep?: (step: CleanerStep, file: string) => void,
): GroupLog {
  const config = new BrokerConfig({ 'log.cleaner.enable': false, 'offsets.topic.segment.bytes': 64 * 1024, ...overrides });
  return GroupLog.open({ dataDir, config, log: silentLog, time, ...(onCleanerStep ? { onCleanerStep } : {}) });
}

/** An OffsetCommit record of group `group`, topic `t`, partition `partition`; a null offset is a tombstone. */
export function commit(group: string, partition: number, offset: bigint | null, timestamp = 0n): OffsetCommitRecord {
  return {
    kind: 'offset-commit',
    groupId: group,
    topic: 't',
    partition,
    value:
      offset === null
        ? null
        : { offset, leaderEpoch: -1, metadata: '', commitTimestamp: timestamp, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
  };
}

function recordKey(r: CoordinatorRecord): string {
  return r.kind === 'offset-commit' ? `oc|${r.groupId}|${r.topic}|${r.partition}` : `gm|${r.groupId}`;
}

/** The state a replay builds: record key -> JSON of its latest value (tombstones remove). */
export function replayState(groupLog: GroupLog): Map<string, string> {
  const state = new Map<string, string>();
  groupLog.replay((r) => {
    if (r.value === null) state.delete(recordKey(r));
    else state.set(recordKey(r), JSON.stringify(r.value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  });
  return state;
}

export function sorted(state: Map<string, string>): Array<[string, string]> {
  return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface StoredRecord {
  offset: bigint;
  key: string;
  value: string | null;
  timestamp: bigint;
}

/** Every record of `batches`, keys and values as hex. */
export function recordsOf(batches: Iterable<Buffer>): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (const b of batches) {
    for (const r of decodeRecords(b)) {
      out.push({ offset: r.offset, key: r.key!.toString('hex'), value: r.value === null ? null : r.value.toString('hex'), timestamp: r.timestamp });
    }
  }
  return out;
}

/** Batches of the closed segments (all but the active one). */
export function closedBatches(log: PartitionLog): Buffer[] {
  return log.closedSegments().flatMap((s) => s.read(0, s.batches.count));
}

/** Batches of the active segment. */
export function activeBatches(log: PartitionLog): Buffer[] {
  const closedCount = closedBatches(log).length;
  return [...log.batches()].slice(closedCount);
}

export function headers(batches: Buffer[]) {
  return batches.map((b) => readBatchHeader(b));
}

/** Waits until `check()` holds, turning the event loop (real time, a few ms per turn). */
export async function waitFor(check: () => boolean, turns = 500): Promise<void> {
  for (let i = 0; i < turns && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('condition not reached');
}
