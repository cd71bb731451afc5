/**
 * What a transaction's COMMIT marker makes of its offsets beside plain OffsetCommits of the same
 * partition, over raw requests against a real server and again after a restart on the same data
 * directory (Kafka 4.3's `OffsetMetadataManager.replay` / `replayEndTransactionMarker`): a pending
 * offset is materialized only when its record offset is larger than the committed one's; a
 * tombstone drops the partition's pending offsets. And the records themselves: a TxnOffsetCommit's
 * carry no topic id (`OffsetAndMetadata.fromRequest` for TxnOffsetCommit sets ZERO_UUID).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../../support/raw-client.js';
import { startClosableServer } from '../../support/server.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ZERO_UUID } from '../../../src/protocol/primitives.js';
import { dumpLogFile } from '../../../src/tools/dump-log.js';
import type { ServerHandle } from '../../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function client(server: ServerHandle): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  cleanups.push(() => c.close());
  return c;
}

const TOPIC = 'txm-topic';
const GROUP = 'txm-group';

interface Producer {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
}

async function createTopic(c: RawClient): Promise<string> {
  const r = await c.send(19, 7, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(r.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  return r.topics[0]!.topicId;
}

/** InitProducerId, then AddOffsetsToTxn for the group: a transaction ready for TxnOffsetCommit. */
async function beginWithGroup(c: RawClient, transactionalId: string): Promise<Producer> {
  const init = await c.send(22, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
  expect(init.errorCode).toBe(ErrorCode.NONE);
  const p = { transactionalId, producerId: init.producerId, producerEpoch: init.producerEpoch };
  expect((await c.send(25, 3, { ...p, groupId: GROUP })).errorCode).toBe(ErrorCode.NONE);
  return p;
}

async function txnCommit(c: RawClient, p: Producer, offset: bigint): Promise<void> {
  const r = await c.send(28, 3, {
    ...p,
    groupId: GROUP,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'txn' }] }],
  });
  expect(r.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
}

/** A standalone OffsetCommit (generation -1, v8). */
async function plainCommit(c: RawClient, offset: bigint): Promise<void> {
  const r = await c.send(8, 8, {
    groupId: GROUP,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: TOPIC, topicId: '', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'plain' }] }],
  });
  expect(r.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
}

/** EndTxn (v3) and the markers written. */
async function endTxn(server: ServerHandle, c: RawClient, p: Producer, committed: boolean): Promise<void> {
  expect((await c.send(26, 3, { ...p, committed })).errorCode).toBe(ErrorCode.NONE);
  await server.broker.transactions.flush();
}

/** The group's committed offset and metadata of the partition (OffsetFetch v7, requireStable). */
async function fetched(c: RawClient): Promise<[bigint, string, number]> {
  const r = await c.send(9, 7, { groupId: GROUP, topics: [{ name: TOPIC, partitionIndexes: [0] }], groups: [], requireStable: true });
  const p = r.topics[0]!.partitions[0]!;
  return [p.committedOffset, p.metadata ?? '', p.errorCode];
}

/** Runs `scenario` on a server, then checks `expected` live and after a restart on the same data directory. */
async function liveAndAfterRestart(scenario: (server: ServerHandle, c: RawClient) => Promise<void>, expected: [bigint, string, number]): Promise<string> {
  const first = await startClosableServer(cleanups);
  const c = await client(first.server);
  await scenario(first.server, c);
  expect(await fetched(c)).toEqual(expected);
  await first.close();
  const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
  expect(await fetched(await client(second.server))).toEqual(expected);
  return first.dataDir;
}

describe('transactional offsets and COMMIT markers', () => {
  it('a plain OffsetCommit made between a TxnOffsetCommit and its COMMIT marker is kept (its record offset is larger)', async () => {
    await liveAndAfterRestart(async (server, c) => {
      await createTopic(c);
      const p = await beginWithGroup(c, 'txm-a');
      await txnCommit(c, p, 5n);
      await plainCommit(c, 10n);
      await endTxn(server, c, p, true);
    }, [10n, 'plain', ErrorCode.NONE]);
  });

  it('a TxnOffsetCommit made after a plain OffsetCommit replaces it at the COMMIT marker', async () => {
    await liveAndAfterRestart(async (server, c) => {
      await createTopic(c);
      await plainCommit(c, 10n);
      const p = await beginWithGroup(c, 'txm-b');
      await txnCommit(c, p, 5n);
      await endTxn(server, c, p, true);
    }, [5n, 'txn', ErrorCode.NONE]);
  });

  it('OffsetDelete between a TxnOffsetCommit and its COMMIT marker drops the pending offset too', async () => {
    await liveAndAfterRestart(async (server, c) => {
      await createTopic(c);
      await plainCommit(c, 3n);
      const p = await beginWithGroup(c, 'txm-c');
      await txnCommit(c, p, 5n);
      const del = await c.send(47, 0, { groupId: GROUP, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
      expect([del.errorCode, del.topics[0]!.partitions[0]!.errorCode]).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
      await endTxn(server, c, p, true);
    }, [-1n, '', ErrorCode.NONE]);
  });

  it('OffsetDelete of a partition with only a pending offset tombstones it: the COMMIT marker brings nothing back', async () => {
    await liveAndAfterRestart(async (server, c) => {
      await createTopic(c);
      const p = await beginWithGroup(c, 'txm-e');
      await txnCommit(c, p, 5n);
      const del = await c.send(47, 0, { groupId: GROUP, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
      expect([del.errorCode, del.topics[0]!.partitions[0]!.errorCode]).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
      await endTxn(server, c, p, true);
    }, [-1n, '', ErrorCode.NONE]);
  });

  it("a TxnOffsetCommit's record carries no topic id, an OffsetCommit's does (kafka-dump-log)", async () => {
    let topicId = '';
    let partition = -1;
    const dataDir = await liveAndAfterRestart(async (server, c) => {
      topicId = await createTopic(c);
      partition = server.broker.groupLog.partitionFor(GROUP);
      await plainCommit(c, 1n);
      const p = await beginWithGroup(c, 'txm-d');
      await txnCommit(c, p, 2n);
      await endTxn(server, c, p, true);
    }, [2n, 'txn', ErrorCode.NONE]);
    const dir = join(dataDir, `__consumer_offsets-${partition}`);
    const lines: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) dumpLogFile(join(dir, f), (l) => lines.push(l));
    const values = lines.filter((l) => l.includes(`"topic":"${TOPIC}"`)).map((l) => l.slice(l.indexOf('payload:')));
    expect(values).toHaveLength(2);
    expect(values[0]).toContain('"metadata":"plain"');
    expect(values[0]).toContain(`"topicId":"${topicId}"`);
    expect(values[1]).toContain('"metadata":"txn"');
    expect(values[1]).not.toContain('topicId');
    expect(topicId).not.toBe(ZERO_UUID);
  });
});
