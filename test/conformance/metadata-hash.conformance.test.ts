/**
 * Conformance of the KIP-848 subscription metadata hash (record 3 `ConsumerGroupMetadataValue`,
 * tag `MetadataHash`): a real Kafka 4.3.1 broker's group coordinator writes it into
 * `__consumer_offsets`; we read those records back with Fetch and check that our
 * `computeMetadataHash` gives the same value for the topic ids Kafka assigned. (Our own server does
 * not serve Fetch on `__consumer_offsets`; its record 3 comes from the same function, which
 * test/coordinator/consumer/metadata-hash.test.ts pins to values computed by Kafka's code.)
 */
import { describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Session, sleep } from './runner.js';
import { hb } from '../support/kip848-group.js';
import { batchLastOffset, batchSize, decodeRecords, LOG_OVERHEAD } from '../../src/records/record-batch.js';
import { decodeRecord } from '../../src/coordinator/records.js';
import { computeMetadataHash } from '../../src/coordinator/consumer/metadata-hash.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { isControlBatch } from '../../src/records/control-batch.js';

const OFFSETS_TOPIC = '__consumer_offsets';

interface GroupMetadata {
  epoch: number;
  metadataHash: bigint;
}

/** Every record 3 value of `groupId` in Kafka's `__consumer_offsets` (one partition here), in log order. */
async function readGroupMetadata(s: Session, groupId: string): Promise<GroupMetadata[]> {
  const found: GroupMetadata[] = [];
  let offset = 0n;
  for (;;) {
    const r = await s.send(1, 12, {
      clusterId: null,
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1n },
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 8 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: OFFSETS_TOPIC, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 8 << 20, replicaDirectoryId: ZERO_UUID, highWatermark: -1n }] }],
      forgottenTopicsData: [],
      rackId: '',
    });
    const p = r.responses[0]?.partitions[0];
    if (!p || p.errorCode !== 0) throw new Error(`Fetch ${OFFSETS_TOPIC}-0 at ${offset}: error ${p?.errorCode}`);
    const records = p.records ?? Buffer.alloc(0);
    let pos = 0;
    let next = offset;
    while (pos + LOG_OVERHEAD <= records.length) {
      const size = batchSize(records, pos);
      if (pos + size > records.length) break; // partial batch at the end of the response
      const batch = records.subarray(pos, pos + size);
      next = batchLastOffset(batch) + 1n;
      pos += size;
      // Transaction markers (other scenarios' TxnOffsetCommits on this broker) hold no group records.
      if (isControlBatch(batch)) continue;
      for (const rec of decodeRecords(batch)) {
        if (rec.offset < offset || rec.key === null) continue;
        const decoded = decodeRecord(Buffer.from(rec.key), rec.value === null ? null : Buffer.from(rec.value));
        if (decoded.kind === 'cg-metadata' && decoded.groupId === groupId && decoded.value) found.push({ ...decoded.value });
      }
    }
    if (next === offset || next >= p.highWatermark) return found;
    offset = next;
  }
}

/** Joins `groupId` with one member subscribed to `topics`; returns the member id and epoch. */
async function join(s: Session, groupId: string, topics: string[]): Promise<{ memberId: string; epoch: number }> {
  const memberId = s.name('member');
  const r = await s.send(68, 1, hb(groupId, memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: topics, topicPartitions: [] }) as never);
  if (r.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat join ${groupId}: error ${r.errorCode}`);
  return { memberId, epoch: r.memberEpoch };
}

describe('MetadataHash of record 3: Kafka 4.3.1 writes what computeMetadataHash computes', () => {
  const session = () => new Session('kafka', inject('kafkaPort'), randomBytes(4).toString('hex'));

  it('two existing topics (3 and 1 partitions) and a missing one; then one topic deleted', async () => {
    const s = session();
    try {
      const big = s.name('mh-big');
      const small = s.name('mh-small');
      const bigId = await s.createTopic(big, 3);
      const smallId = await s.createTopic(small, 1);
      const g = s.name('mh-group');
      const { memberId } = await join(s, g, [small, big, s.name('mh-missing')]);

      const expected = computeMetadataHash([
        { name: big, topicId: bigId, partitionCount: 3 },
        { name: small, topicId: smallId, partitionCount: 1 },
      ]);
      const first = await readGroupMetadata(s, g);
      expect(first.length).toBeGreaterThan(0);
      expect(first.at(-1)!.metadataHash).toBe(expected);

      // Deleting a subscribed topic changes the hash (on a later heartbeat, once the new metadata image is seen).
      const del = await s.send(20, 6, { topicNames: [], topics: [{ name: small, topicId: ZERO_UUID }], timeoutMs: 30_000 });
      expect(del.responses[0]?.errorCode).toBe(0);
      const afterDelete = computeMetadataHash([{ name: big, topicId: bigId, partitionCount: 3 }]);
      const deadline = Date.now() + 20_000;
      let latest = first.at(-1)!;
      let epoch = latest.epoch;
      while (Date.now() < deadline && latest.metadataHash !== afterDelete) {
        const h = await s.send(68, 1, hb(g, memberId, epoch) as never);
        if (h.errorCode === 0) epoch = h.memberEpoch;
        latest = (await readGroupMetadata(s, g)).at(-1)!;
        if (latest.metadataHash !== afterDelete) await sleep(200);
      }
      expect(latest.metadataHash).toBe(afterDelete);
    } finally {
      s.close();
    }
  }, 60_000);

  it('only missing topics subscribed: the hash is 0', async () => {
    const s = session();
    try {
      const g = s.name('mh-group-missing');
      await join(s, g, [s.name('mh-nothing')]);
      const written = await readGroupMetadata(s, g);
      expect(written.length).toBeGreaterThan(0);
      expect(written.at(-1)!.metadataHash).toBe(0n);
      expect(computeMetadataHash([])).toBe(0n);
    } finally {
      s.close();
    }
  }, 60_000);
});
