/**
 * A request string longer than 32,767 bytes fails to parse and costs its connection, as Kafka's
 * generated readers refuse it ("string field ... had invalid length") whether its length is an
 * int16 or, in flexible versions, a varint: Kafka 4.3.1 closed the connection of a
 * ConsumerGroupHeartbeat with a 50,002-byte regular expression. One of 32,767 bytes is read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { MAX_REQUEST_STRING_BYTES, Writer } from '../../src/protocol/primitives.js';
import { API_CODECS, type ApiKeyWithCodec } from '../../src/protocol/messages/index.js';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { createTopic } from '../support/raw-transactions.js';

/**
 * A flexible request's body (header tagged fields first, as `sendRawRequest` writes header v1) with
 * its compact string `filler` (32,767 bytes, the most our writer writes, as Kafka's) made one byte
 * longer: its length varint raised by one (three bytes either way) and one more byte after it.
 */
function oneByteLonger(apiKey: ApiKeyWithCodec, version: number, body: unknown, filler: string): Buffer {
  const w = new Writer();
  w.uvarint(0);
  (API_CODECS[apiKey].request.encode as (w: Writer, v: number, b: unknown) => void)(w, version, body);
  const bytes = Buffer.from(w.finish());
  const at = bytes.indexOf(filler);
  expect(bytes.subarray(at - 3, at)).toEqual(Buffer.from([0x80, 0x80, 0x02])); // 32,768: the length + 1
  bytes[at - 3] = 0x81;
  return Buffer.concat([bytes.subarray(0, at + filler.length), Buffer.from(filler.slice(-1)), bytes.subarray(at + filler.length)]);
}

const heartbeat = (regex: string) => ({
  groupId: 'long-regex', memberId: 'm-long-regex-000000000', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000,
  subscribedTopicNames: null, subscribedTopicRegex: regex, serverAssignor: null, topicPartitions: [],
});

describe('request strings of more than 32,767 bytes', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ inMemory: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('a ConsumerGroupHeartbeat whose regex is 32,768 bytes closes the connection and joins no one; one of 32,767 joins', async () => {
    expect(MAX_REQUEST_STRING_BYTES).toBe(32_767);
    const c = await RawClient.connect(server.port);
    const regex = `${'a'.repeat(32_765)}.*`;
    await expect(c.sendRawRequest(68, 1, oneByteLonger(68, 1, heartbeat(regex), regex))).rejects.toThrow('closed');
    const other = await RawClient.connect(server.port);
    const described = await other.send(69, 0, { groupIds: ['long-regex'], includeAuthorizedOperations: false });
    expect(described.groups[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    const joined = await other.send(68, 1, heartbeat(`${'a'.repeat(32_765)}.*`));
    expect([joined.errorCode, joined.memberEpoch]).toEqual([ErrorCode.NONE, 1]);
    other.close();
  });

  it('an OffsetCommit v8 whose metadata is 32,768 bytes closes the connection; 32,767 bytes answers OFFSET_METADATA_TOO_LARGE', async () => {
    const commit = (metadata: string) => ({
      groupId: 'long-metadata', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'long-metadata', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: metadata }] }],
    });
    const c = await RawClient.connect(server.port);
    await createTopic(c, 'long-metadata', 1);
    const metadata = 'm'.repeat(32_767);
    await expect(c.sendRawRequest(8, 8, oneByteLonger(8, 8, commit(metadata), metadata))).rejects.toThrow('closed');
    const other = await RawClient.connect(server.port);
    const res = await other.send(8, 8, commit('m'.repeat(32_767)));
    expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_METADATA_TOO_LARGE);
    other.close();
  });
});
