import { describe, expect, it } from 'vitest';
import { xxh3 } from '@node-rs/xxhash';
import { computeMetadataHash, computeTopicHash, type HashableTopic } from '../../../src/coordinator/consumer/metadata-hash.js';

/*
 * Expected values computed by Kafka 4.3.1's own code (kafka-group-coordinator-4.3.1.jar with
 * hash4j-0.22.0): `Utils.computeTopicHash(name, new KRaftCoordinatorMetadataImage(image))` and
 * `ModernGroup.computeMetadataHash(subscribedTopicNames, cache, image)` (which calls
 * `Utils.computeGroupHash`), on a MetadataImage built by replaying RegisterBrokerRecord (brokers
 * 0..3 with racks none, "rack-b", "rack-a", "rack-b"), TopicRecord and PartitionRecord (replicas
 * [0], or [1, 2, 3, 0] for "racked") through a MetadataDelta. Signed 64-bit, as Java's long.
 */

const LONG_NAME = 'long-topic-name.'.repeat(16).slice(0, 249);

const ORDERS: HashableTopic = { name: 'orders', topicId: 'ASNFZ4mrze_-3LqYdlQyEA', partitionCount: 1 };
const PAYMENTS: HashableTopic = { name: 'payments', topicId: 'q4DrS7ZSQmK0Ia5u2yUq0w', partitionCount: 3 };
const EVENEMENTS: HashableTopic = { name: '\u00e9v\u00e9nements-\u65e5\u672c', topicId: 'AAAAAAAAAAEAAAAAAAAAAQ', partitionCount: 50 };
const EMOJI: HashableTopic = { name: 'topic-\u{1F600}', topicId: 'Zm9vYmFyYmF6cXV4cXV1eA', partitionCount: 3 };
const LAST: HashableTopic = { name: '\uffff-last', topicId: '_____________________w', partitionCount: 1 };
const LONG: HashableTopic = { name: LONG_NAME, topicId: '7bVGmHpVSN2y8q0ZpX3H1g', partitionCount: 300 };
// Replicas on brokers 1, 2, 3, 0: racks rack-b, rack-a, rack-b and none (unsorted on purpose).
const RACKED: HashableTopic = {
  name: 'racked',
  topicId: 'cmFja2VkLXRvcGljLWlkMQ',
  partitionCount: 3,
  partitionRacks: [0, 1, 2].map(() => ['rack-b', 'rack-a', 'rack-b']),
};

describe('computeTopicHash (Kafka 4.3.1 Utils.computeTopicHash)', () => {
  it.each([
    ['orders, 1 partition', ORDERS, -6331329304306155358n],
    ['payments, 3 partitions', PAYMENTS, -1775480420817033381n],
    ['non-ASCII name, 50 partitions', EVENEMENTS, -1748312547069187840n],
    ['name with a surrogate pair', EMOJI, 241683685709628865n],
    ['name starting with U+FFFF', LAST, 2304472171705227709n],
    ['249-character name, 300 partitions', LONG, -8135600723485993298n],
    ['replicas with racks', RACKED, -4112837870944016868n],
  ])('%s', (_label, topic, expected) => {
    expect(computeTopicHash(topic)).toBe(expected);
    expect(computeTopicHash(topic)).toBe(expected); // cached path
  });

  it('hashes the byte sequence Kafka feeds hash4j (all little-endian, strings as UTF-16LE + length)', () => {
    const bytes = Buffer.from(
      '00' + // magic byte
        'efcdab8967452301' + // msb 0x0123456789abcdef, LE
        '1032547698badcfe' + // lsb 0xfedcba9876543210, LE
        '6f007200640065007200730006000000' + // putString("orders"): UTF-16LE chars, int32 LE length 6
        '01000000' + // partition count
        '00000000', // partition 0 (no racks)
      'hex',
    );
    expect(BigInt.asIntN(64, xxh3.xxh64(bytes))).toBe(-6331329304306155358n);
  });

  it('rejects a topic id that is not a Kafka Uuid', () => {
    expect(() => computeTopicHash({ name: 't', topicId: 'not-a-uuid', partitionCount: 1 })).toThrow(TypeError);
  });
});

describe('computeMetadataHash (Kafka 4.3.1 ModernGroup.computeMetadataHash / Utils.computeGroupHash)', () => {
  it('is 0 when no subscribed topic exists (Kafka drops missing topics before hashing)', () => {
    expect(computeMetadataHash([])).toBe(0n);
  });

  it.each([
    ['orders', [ORDERS], -6770912035738735559n],
    ['orders, payments', [ORDERS, PAYMENTS], 2482515854644402457n],
    ['payments, orders (order of input does not matter)', [PAYMENTS, ORDERS], 2482515854644402457n],
    ['non-ASCII, orders, payments', [EVENEMENTS, ORDERS, PAYMENTS], -2563121926438366224n],
    ['UTF-16 order: surrogate pair before U+FFFF', [LAST, EMOJI], -2101387684486282845n],
    ['racked, orders', [RACKED, ORDERS], -8800412326711244161n],
    ['long, non-ASCII, emoji', [LONG, EVENEMENTS, EMOJI], 2067034435821269932n],
  ])('%s', (_label, topics, expected) => {
    expect(computeMetadataHash(topics)).toBe(expected);
  });

  it('is XXH3-64 over the topic hashes (int64 LE) in topic name order', () => {
    const buf = Buffer.alloc(16);
    buf.writeBigInt64LE(computeTopicHash(ORDERS), 0);
    buf.writeBigInt64LE(computeTopicHash(PAYMENTS), 8);
    expect(BigInt.asIntN(64, xxh3.xxh64(buf))).toBe(2482515854644402457n);
  });
});
