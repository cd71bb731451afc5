import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { crc32c } from '../../src/records/crc32c.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { defaultListOffsetsRequest } from '../../src/protocol/messages/ListOffsetsRequest.js';

/** A batch that claims gzip but whose payload is not gzip, with a valid CRC. */
function fakeGzipBatch(): Buffer {
  const batch = Buffer.from(encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: [{ key: null, value: Buffer.from('v') }] }));
  batch.writeInt16BE(1, 21);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

describe('inputs found by adversarial testing', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: RawClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = await RawClient.connect(server.port);
    const created = await client.send(19, 4, {
      ...defaultCreateTopicsRequest(), timeoutMs: 5000,
      topics: [{ ...defaultCreatableTopic(), name: 'robust', numPartitions: 1, replicationFactor: 1 }],
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('refuses a gzip batch whose records do not decompress with UNKNOWN_SERVER_ERROR (Kafka\'s KafkaException), storing nothing', async () => {
    const res = await client.send(0, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'robust', topicId: '', partitionData: [{ index: 0, records: fakeGzipBatch() }] }] });
    expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    const offsets = await client.send(2, 5, {
      ...defaultListOffsetsRequest(), replicaId: -1,
      topics: [{ name: 'robust', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 0n }] }],
    });
    expect(offsets.topics[0]!.partitions[0]!.offset).toBe(-1n);
  });

  it('answers a JoinGroup listing one protocol twice, and the group completes its join', async () => {
    const metadata = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const res = await client.send(11, 3, {
      ...defaultJoinGroupRequest(), groupId: 'dup-protocols', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata }, { name: 'range', metadata }],
    });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.protocolName).toBe('range');
    expect(res.generationId).toBe(1);
  });

  it('accepts an OffsetCommit v2 retention that overflows int64, as Java arithmetic wraps', async () => {
    const res = await client.send(8, 2, {
      ...defaultOffsetCommitRequest(), groupId: 'overflow', generationIdOrMemberEpoch: -1, retentionTimeMs: 9223372036854775807n,
      topics: [{ name: 'robust', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: 77n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const fetched = await client.send(9, 5, { groupId: 'overflow', topics: [{ name: 'robust', partitionIndexes: [0] }], groups: [], requireStable: false });
    expect(fetched.topics[0]!.partitions[0]!.committedOffset).toBe(77n);
  });

  it("answers UNKNOWN_SERVER_ERROR where the answer would carry a string over 32,767 bytes (ElectLeaders' \"No such topic as <name>\"), compact strings too, as Kafka 4.3.1 (adversarial trial, session 33)", async () => {
    const topic = 'e'.repeat(32_760);
    const c = await RawClient.connect(server.port);
    for (const version of [0, 1, 2]) {
      const res = await c.send(43, version, { electionType: 0, topicPartitions: [{ topic, partitions: [0] }], timeoutMs: 1000 });
      expect([res.errorCode, res.replicaElectionResults.map((r) => [r.topic.length, r.partitionResult.map((p) => [p.partitionId, p.errorCode, p.errorMessage])])]).toEqual([
        version >= 1 ? ErrorCode.UNKNOWN_SERVER_ERROR : ErrorCode.NONE,
        [[32_760, [[0, ErrorCode.UNKNOWN_SERVER_ERROR, null]]]],
      ]);
    }
    // The same connection goes on.
    expect((await c.send(18, 2, { clientSoftwareName: '', clientSoftwareVersion: '' })).errorCode).toBe(ErrorCode.NONE);
    c.close();
  });

  it('closes only the connection whose response cannot be encoded, nor its error response (an echoed name over 32767 bytes)', async () => {
    const bad = await RawClient.connect(server.port);
    // Metadata v1 with a topic name of invalid UTF-8: decoded as U+FFFD, three bytes each on the way back.
    const name = Buffer.alloc(20000, 0xff);
    const body = Buffer.alloc(4 + 2 + name.length);
    body.writeInt32BE(1, 0);
    body.writeInt16BE(name.length, 4);
    name.copy(body, 6);
    await expect(bad.sendRawRequest(3, 1, body)).rejects.toThrow(/closed/);
    const res = await client.send(18, 2, { clientSoftwareName: '', clientSoftwareVersion: '' });
    expect(res.errorCode).toBe(ErrorCode.NONE);
  });
});
