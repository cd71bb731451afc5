import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config.js';
import type { Time } from '../util/time.js';
import { PartitionLog, type FlushPolicy } from '../storage/partition-log.js';
import { encodeRecordBatch, decodeRecords } from '../records/record-batch.js';
import { offsetsPartitionFor } from '../util/java-hash.js';
import { decodeRecord, encodeKey, encodeValue, type CoordinatorRecord } from './records.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

export interface GroupLogOptions {
  dataDir: string | null;
  config: BrokerConfig;
  log: Logger;
  time: Time;
}

/**
 * The `__consumer_offsets` topic: `offsets.topic.num.partitions` partition logs under
 * `<data-dir>/__consumer_offsets-<p>/`, a group's records going to
 * `Utils.abs(groupId.hashCode()) % partitions` (Kafka's `GroupCoordinatorService.partitionFor`).
 * Each `append` call becomes one RecordBatch per partition touched, as Kafka's coordinator
 * runtime writes one batch per write operation.
 */
export class GroupLog {
  readonly partitionCount: number;
  private readonly partitions: PartitionLog[];
  private readonly time: Time;

  private constructor(options: GroupLogOptions) {
    const { config, dataDir } = options;
    this.time = options.time;
    this.partitionCount = config.int('offsets.topic.num.partitions');
    this.partitions = [];
    for (let p = 0; p < this.partitionCount; p++) {
      this.partitions.push(
        PartitionLog.open({
          dir: dataDir === null ? null : join(dataDir, `${OFFSETS_TOPIC}-${p}`),
          segmentBytes: config.int('offsets.topic.segment.bytes'),
          rollMs: config.logRollMs(),
          flushPolicy: config.string('mock.flush.policy') as FlushPolicy,
          flushIntervalMs: Number(config.long('log.flush.interval.ms')),
          log: options.log,
          time: options.time,
        }),
      );
    }
  }

  static open(options: GroupLogOptions): GroupLog {
    return new GroupLog(options);
  }

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitionCount);
  }

  /** Appends records (grouped by their group's partition); resolves once they are durable. */
  append(records: readonly CoordinatorRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const byPartition = new Map<number, CoordinatorRecord[]>();
    for (const record of records) {
      const p = this.partitionFor(record.groupId);
      let list = byPartition.get(p);
      if (!list) byPartition.set(p, (list = []));
      list.push(record);
    }
    const timestamp = BigInt(this.time.now());
    const durable: Promise<void>[] = [];
    for (const [p, list] of byPartition) {
      const batch = encodeRecordBatch({
        baseOffset: 0n,
        timestamp,
        records: list.map((r) => ({ key: encodeKey(r), value: encodeValue(r) })),
      });
      durable.push(this.partitions[p]!.append([batch]).durable);
    }
    return durable.length === 1 ? durable[0]! : Promise.all(durable).then(() => undefined);
  }

  /** Replays every stored record in log order, partition by partition; unknown record types are skipped. */
  replay(apply: (record: CoordinatorRecord) => void): void {
    for (const partition of this.partitions) {
      for (const batch of partition.batches()) {
        for (const r of decodeRecords(batch)) {
          if (r.key === null) continue;
          const record = decodeRecord(r.key, r.value);
          if (record.kind !== 'unknown') apply(record);
        }
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.partitions.map((p) => p.close()));
  }
}
