import { afterEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../support/fake-time.js';
import { removeTempDirs, tempDir } from './helpers.js';
import type { GroupLog } from '../../src/coordinator/group-log.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { readBatchHeader, TRANSACTIONAL_FLAG_MASK, validateBatch } from '../../src/records/record-batch.js';
import { commit, openGroupLog, recordsOf } from './cleaner-support.js';
import { KeyValueBatchBuilder } from '../../src/records/key-value-batch.js';
import { encodeKey, encodeValue } from '../../src/coordinator/records.js';

const opened: GroupLog[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((g) => g.close()));
  removeTempDirs();
});

function open(dataDir: string | null, time = new FakeTime(), overrides: Record<string, string | number> = {}): GroupLog {
  const g = openGroupLog(dataDir, time, overrides);
  opened.push(g);
  return g;
}

/** Each batch of group `g`'s partition: its base offset, record count, whether transactional, and the records' offsets. */
function layoutOf(groupLog: GroupLog): Array<{ base: bigint; records: number; transactional: boolean; offsets: bigint[] }> {
  const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
  return [...log.batches()].map((b) => {
    validateBatch(b);
    const h = readBatchHeader(b);
    return { base: h.baseOffset, records: h.recordCount, transactional: (h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0, offsets: recordsOf([b]).map((r) => r.offset) };
  });
}

describe("GroupLog: a turn's writes to a partition share a batch (Kafka's append linger -1)", () => {
  it('three appends in one turn make one batch of three records; the next turn starts another', async () => {
    const groupLog = open(tempDir('kmc-linger-'));
    await Promise.all([groupLog.append([commit('g', 0, 10n)]), groupLog.append([commit('g', 1, 11n)]), groupLog.append([commit('g', 2, 12n), commit('g', 3, 13n)])]);
    await groupLog.append([commit('g', 0, 20n)]);
    expect(layoutOf(groupLog)).toEqual([
      { base: 0n, records: 4, transactional: false, offsets: [0n, 1n, 2n, 3n] },
      { base: 4n, records: 1, transactional: false, offsets: [4n] },
    ]);
  });

  it('a transactional write in the same turn is a batch of its own, after what lingered', async () => {
    const groupLog = open(tempDir('kmc-linger-'));
    const txn = { producerId: 7n, producerEpoch: 0 };
    await Promise.all([
      groupLog.append([commit('g', 0, 10n)]),
      groupLog.append([commit('g', 1, 11n)], txn),
      groupLog.append([commit('g', 2, 12n)]),
    ]);
    expect(layoutOf(groupLog)).toEqual([
      { base: 0n, records: 1, transactional: false, offsets: [0n] },
      { base: 1n, records: 1, transactional: true, offsets: [1n] },
      { base: 2n, records: 1, transactional: false, offsets: [2n] },
    ]);
  });

  it('writes settle in log order: a transactional write or a marker after lingering records settles after them', async () => {
    const groupLog = open(tempDir('kmc-linger-'));
    const txn = { producerId: 7n, producerEpoch: 0 };
    const settled: string[] = [];
    const note = (name: string, p: Promise<void>) => p.then(() => void settled.push(name));
    const writes = [
      note('commit', groupLog.append([commit('g', 0, 10n)])),
      note('txn offset', groupLog.append([commit('g', 1, 11n)], txn)),
      note('commit 2', groupLog.append([commit('g', 2, 12n)])),
      note('marker', groupLog.appendMarker(groupLog.partitionFor('g'), txn, true, 0)),
    ];
    await Promise.all(writes);
    // The coordinator applies writes as they settle: a later one first would take an earlier offset for the newer.
    expect(settled).toEqual(['commit', 'txn offset', 'commit 2', 'marker']);
  });

  it('records that would make the batch larger than message.max.bytes start a new one; records too large alone are refused and change nothing', async () => {
    // A batch as large as one commit's: it holds one record, not two.
    const one = new KeyValueBatchBuilder();
    one.add(encodeKey(commit('g', 0, 10n)), encodeValue(commit('g', 0, 10n)));
    const groupLog = open(tempDir('kmc-linger-'), new FakeTime(), { 'message.max.bytes': one.size });
    const writes = [groupLog.append([commit('g', 0, 10n)]), groupLog.append([commit('g', 1, 11n)])];
    let refused: unknown = null;
    try {
      groupLog.append([commit('g', 2, 12n), commit('g', 3, 13n)]);
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ errorCode: ErrorCode.MESSAGE_TOO_LARGE });
    await Promise.all(writes);
    expect(layoutOf(groupLog)).toEqual([
      { base: 0n, records: 1, transactional: false, offsets: [0n] },
      { base: 1n, records: 1, transactional: false, offsets: [1n] },
    ]);
  });

  it('a clock tick within a turn starts a new batch (every record carries its batch timestamp)', async () => {
    const time = new FakeTime();
    const groupLog = open(tempDir('kmc-linger-'), time);
    const first = groupLog.append([commit('g', 0, 10n)]);
    time.advance(5);
    const second = groupLog.append([commit('g', 1, 11n)]);
    await Promise.all([first, second]);
    const log = groupLog.partitionLogs()[groupLog.partitionFor('g')]!;
    expect([...log.batches()].map((b) => [readBatchHeader(b).recordCount, readBatchHeader(b).maxTimestamp - readBatchHeader([...log.batches()][0]!).maxTimestamp])).toEqual([
      [1, 0n],
      [1, 5n],
    ]);
  });

  it('in memory each append is a batch, as before', async () => {
    const groupLog = open(null);
    await Promise.all([groupLog.append([commit('g', 0, 10n)]), groupLog.append([commit('g', 1, 11n)])]);
    expect(layoutOf(groupLog).map((b) => b.records)).toEqual([1, 1]);
  });
});
