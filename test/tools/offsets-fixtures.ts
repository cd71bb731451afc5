/**
 * A `__consumer_offsets` segment with every record type we write (1-8 and 16), edge cases of
 * the JSON converters (tagged fields at their defaults, null strings, value versions 0/1/3/4,
 * consumer-protocol member bytes, bytes that do not parse, escapes), tombstones and an unknown
 * record type, each with the key/payload text Kafka's DumpLogSegments prints for it.
 */
import { Writer } from '../../src/protocol/primitives.js';
import { encodeRecordBatch, type RecordInput } from '../../src/records/record-batch.js';
import * as OffsetCommitKey from '../../src/records/schemas/OffsetCommitKey.js';
import * as OffsetCommitValue from '../../src/records/schemas/OffsetCommitValue.js';
import * as GroupMetadataKey from '../../src/records/schemas/GroupMetadataKey.js';
import * as GroupMetadataValue from '../../src/records/schemas/GroupMetadataValue.js';
import * as ConsumerGroupMetadataKey from '../../src/records/schemas/ConsumerGroupMetadataKey.js';
import * as ConsumerGroupMetadataValue from '../../src/records/schemas/ConsumerGroupMetadataValue.js';
import * as ConsumerGroupPartitionMetadataKey from '../../src/records/schemas/ConsumerGroupPartitionMetadataKey.js';
import * as ConsumerGroupPartitionMetadataValue from '../../src/records/schemas/ConsumerGroupPartitionMetadataValue.js';
import * as ConsumerGroupMemberMetadataKey from '../../src/records/schemas/ConsumerGroupMemberMetadataKey.js';
import * as ConsumerGroupMemberMetadataValue from '../../src/records/schemas/ConsumerGroupMemberMetadataValue.js';
import * as ConsumerGroupTargetAssignmentMetadataKey from '../../src/records/schemas/ConsumerGroupTargetAssignmentMetadataKey.js';
import * as ConsumerGroupTargetAssignmentMetadataValue from '../../src/records/schemas/ConsumerGroupTargetAssignmentMetadataValue.js';
import * as ConsumerGroupTargetAssignmentMemberKey from '../../src/records/schemas/ConsumerGroupTargetAssignmentMemberKey.js';
import * as ConsumerGroupTargetAssignmentMemberValue from '../../src/records/schemas/ConsumerGroupTargetAssignmentMemberValue.js';
import * as ConsumerGroupCurrentMemberAssignmentKey from '../../src/records/schemas/ConsumerGroupCurrentMemberAssignmentKey.js';
import * as ConsumerGroupCurrentMemberAssignmentValue from '../../src/records/schemas/ConsumerGroupCurrentMemberAssignmentValue.js';
import * as ConsumerGroupRegularExpressionKey from '../../src/records/schemas/ConsumerGroupRegularExpressionKey.js';
import * as ConsumerGroupRegularExpressionValue from '../../src/records/schemas/ConsumerGroupRegularExpressionValue.js';
import * as ConsumerProtocolSubscription from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import * as ConsumerProtocolAssignment from '../../src/records/schemas/ConsumerProtocolAssignment.js';

interface Codec<T> {
  encode(w: Writer, version: number, value: T): void;
}

function keyBytes<T>(type: number, codec: Codec<T>, value: T): Buffer {
  const w = new Writer(64);
  w.int16(type);
  codec.encode(w, 0, value);
  return Buffer.from(w.finish());
}

function valueBytes<T>(version: number, codec: Codec<T>, value: T): Buffer {
  const w = new Writer(64);
  w.int16(version);
  codec.encode(w, version, value);
  return Buffer.from(w.finish());
}

export function consumerSubscription(version: number, value: ConsumerProtocolSubscription.ConsumerProtocolSubscription): Buffer {
  return valueBytes(version, ConsumerProtocolSubscription, value);
}

export function consumerAssignment(version: number, value: ConsumerProtocolAssignment.ConsumerProtocolAssignment): Buffer {
  return valueBytes(version, ConsumerProtocolAssignment, value);
}

/**
 * Replaces an empty trailing tagged-field block (0x00) by one holding tag 0 = a null struct as
 * Kafka writes it: 1 field, tag 0, size 1, unsigned-varint presence marker 0.
 */
export function withNullTag0(value: Buffer): Buffer {
  if (value[value.length - 1] !== 0) throw new Error('expected an empty tagged-field block at the end');
  return Buffer.concat([value.subarray(0, value.length - 1), Buffer.from([1, 0, 1, 0])]);
}

export interface FixtureRecord {
  record: RecordInput;
  /** What DumpLogSegments prints after `key: ` (absent: nothing). */
  key: string;
  /** What it prints after `payload: ` (absent: nothing). */
  payload?: string;
}

const TOPIC_ID = 'Rfl4WzuKSVOyZ2jXqNldDQ';
const MEMBER = 'rG3L_GErSLKFp3Vdw9MvcQ';
const G = 'b1.proto.consumer.group';

/** Records in segment order (offsets 0..n-1 when written as one batch per record from base 0). */
export function fixtureRecords(): FixtureRecord[] {
  const recs: FixtureRecord[] = [];
  const add = (key: Buffer, value: Buffer | null, expectedKey: string, payload?: string): void => {
    recs.push({ record: { key, value }, key: expectedKey, ...(payload !== undefined ? { payload } : {}) });
  };
  const ocKey = (group: string, topic: string, partition: number): Buffer => keyBytes(1, OffsetCommitKey, { group, topic, partition });
  const ocKeyJson = (group: string, topic: string, partition: number): string =>
    `{"type":"1","data":{"group":${JSON.stringify(group)},"topic":${JSON.stringify(topic)},"partition":${partition}}}`;

  // Type 2: an empty classic group (as Kafka writes it when the group is created and left).
  add(
    keyBytes(2, GroupMetadataKey, { group: 'b1.offsets.group' }),
    valueBytes(3, GroupMetadataValue, { protocolType: '', generation: 0, protocol: null, leader: null, currentStateTimestamp: 1793247616118n, members: [] }),
    '{"type":"2","data":{"group":"b1.offsets.group"}}',
    '{"version":"3","data":{"protocolType":"","generation":0,"protocol":null,"leader":null,"currentStateTimestamp":1793247616118,"members":[]}}',
  );
  // Type 2: a stable consumer group with one member; subscription v3 and assignment v3 decoded.
  const subscription = consumerSubscription(3, {
    topics: ['b1.offsets.demo'],
    userData: null,
    ownedPartitions: [{ topic: 'b1.offsets.demo', partitions: [0, 1] }],
    generationId: 4,
    rackId: null,
  });
  const assignment = consumerAssignment(3, { assignedPartitions: [{ topic: 'b1.offsets.demo', partitions: [0, 1, 2] }], userData: Buffer.from([1, 2, 3]) });
  add(
    keyBytes(2, GroupMetadataKey, { group: 'b1.offsets.group' }),
    valueBytes(3, GroupMetadataValue, {
      protocolType: 'consumer',
      generation: 5,
      protocol: 'range',
      leader: 'console-consumer-1',
      currentStateTimestamp: 1793247619126n,
      members: [
        {
          memberId: 'console-consumer-1',
          groupInstanceId: null,
          clientId: 'console-consumer',
          clientHost: '/127.0.0.1',
          rebalanceTimeout: 300000,
          sessionTimeout: 45000,
          subscription,
          assignment,
        },
        {
          // Bytes that are not a ConsumerProtocol message stay base64.
          memberId: 'odd-member',
          groupInstanceId: 'static-1',
          clientId: 'odd',
          clientHost: '/10.0.0.2',
          rebalanceTimeout: 1000,
          sessionTimeout: 10000,
          subscription: Buffer.from([0xff]),
          assignment: Buffer.alloc(0),
        },
      ],
    }),
    '{"type":"2","data":{"group":"b1.offsets.group"}}',
    '{"version":"3","data":{"protocolType":"consumer","generation":5,"protocol":"range","leader":"console-consumer-1","currentStateTimestamp":1793247619126,"members":[' +
      '{"memberId":"console-consumer-1","groupInstanceId":null,"clientId":"console-consumer","clientHost":"/127.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,' +
      '"subscription":{"topics":["b1.offsets.demo"],"userData":null,"ownedPartitions":[{"topic":"b1.offsets.demo","partitions":[0,1]}],"generationId":4,"rackId":null},' +
      '"assignment":{"assignedPartitions":[{"topic":"b1.offsets.demo","partitions":[0,1,2]}],"userData":"AQID"}},' +
      '{"memberId":"odd-member","groupInstanceId":"static-1","clientId":"odd","clientHost":"/10.0.0.2","rebalanceTimeout":1000,"sessionTimeout":10000,"subscription":"/w==","assignment":""}]}}',
  );
  // Type 2: another protocol type keeps its bytes as base64; subscription v0 would not be decoded here.
  add(
    keyBytes(2, GroupMetadataKey, { group: 'connect-cluster' }),
    valueBytes(3, GroupMetadataValue, {
      protocolType: 'connect',
      generation: 1,
      protocol: 'sessioned',
      leader: 'w1',
      currentStateTimestamp: -1n,
      members: [{ memberId: 'w1', groupInstanceId: null, clientId: 'c', clientHost: '/h', rebalanceTimeout: 1, sessionTimeout: 2, subscription: Buffer.from('hi'), assignment: Buffer.from('there') }],
    }),
    '{"type":"2","data":{"group":"connect-cluster"}}',
    '{"version":"3","data":{"protocolType":"connect","generation":1,"protocol":"sessioned","leader":"w1","currentStateTimestamp":-1,"members":[{"memberId":"w1","groupInstanceId":null,"clientId":"c","clientHost":"/h","rebalanceTimeout":1,"sessionTimeout":2,"subscription":"aGk=","assignment":"dGhlcmU="}]}}',
  );
  // Type 2 with an older subscription version (v0, no owned partitions).
  add(
    keyBytes(2, GroupMetadataKey, { group: 'old' }),
    valueBytes(3, GroupMetadataValue, {
      protocolType: 'consumer',
      generation: 1,
      protocol: 'range',
      leader: 'm',
      currentStateTimestamp: 5n,
      members: [
        {
          memberId: 'm', groupInstanceId: null, clientId: 'c', clientHost: '/h', rebalanceTimeout: 1, sessionTimeout: 2,
          subscription: consumerSubscription(0, { topics: ['t'], userData: Buffer.from('u'), ownedPartitions: [], generationId: -1, rackId: null }),
          assignment: consumerAssignment(0, { assignedPartitions: [], userData: null }),
        },
      ],
    }),
    '{"type":"2","data":{"group":"old"}}',
    '{"version":"3","data":{"protocolType":"consumer","generation":1,"protocol":"range","leader":"m","currentStateTimestamp":5,"members":[{"memberId":"m","groupInstanceId":null,"clientId":"c","clientHost":"/h","rebalanceTimeout":1,"sessionTimeout":2,"subscription":{"topics":["t"],"userData":"dQ=="},"assignment":{"assignedPartitions":[],"userData":null}}]}}',
  );

  // Type 1: value v4 with and without the tagged topic id, v1 with an expire timestamp, v3, v0.
  add(
    ocKey('b1.offsets.group', 'b1.offsets.demo', 1),
    valueBytes(4, OffsetCommitValue, { offset: 12n, leaderEpoch: 0, metadata: '', commitTimestamp: 1793247619231n, expireTimestamp: -1n, topicId: TOPIC_ID }),
    ocKeyJson('b1.offsets.group', 'b1.offsets.demo', 1),
    `{"version":"4","data":{"offset":12,"leaderEpoch":0,"metadata":"","commitTimestamp":1793247619231,"topicId":"${TOPIC_ID}"}}`,
  );
  add(
    ocKey('b1.offsets.group', 'b1.offsets.demo', 0),
    valueBytes(4, OffsetCommitValue, { offset: 0n, leaderEpoch: -1, metadata: 'm "q" \\ \n\t\u0001 é', commitTimestamp: 1793247619231n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ocKeyJson('b1.offsets.group', 'b1.offsets.demo', 0),
    '{"version":"4","data":{"offset":0,"leaderEpoch":-1,"metadata":"m \\"q\\" \\\\ \\n\\t\\u0001 é","commitTimestamp":1793247619231}}',
  );
  add(
    ocKey('simple', 't', 2),
    valueBytes(1, OffsetCommitValue, { offset: 9007199254740993n, leaderEpoch: -1, metadata: 'x', commitTimestamp: 100n, expireTimestamp: 200n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ocKeyJson('simple', 't', 2),
    '{"version":"1","data":{"offset":9007199254740993,"metadata":"x","commitTimestamp":100,"expireTimestamp":200}}',
  );
  add(
    ocKey('simple', 't', 3),
    valueBytes(3, OffsetCommitValue, { offset: 7n, leaderEpoch: 3, metadata: '', commitTimestamp: 100n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ocKeyJson('simple', 't', 3),
    '{"version":"3","data":{"offset":7,"leaderEpoch":3,"metadata":"","commitTimestamp":100}}',
  );
  add(
    ocKey('simple', 't', 4),
    valueBytes(0, OffsetCommitValue, { offset: 8n, leaderEpoch: -1, metadata: '', commitTimestamp: 100n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ocKeyJson('simple', 't', 4),
    '{"version":"0","data":{"offset":8,"metadata":"","commitTimestamp":100}}',
  );
  // Type 1 tombstone.
  add(ocKey('simple', 't', 4), null, ocKeyJson('simple', 't', 4), '<DELETE>');

  // KIP-848 records (TOOL-OUTPUTS.md), plus tagged fields at their defaults.
  add(
    keyBytes(5, ConsumerGroupMemberMetadataKey, { groupId: G, memberId: MEMBER }),
    valueBytes(0, ConsumerGroupMemberMetadataValue, {
      instanceId: null, rackId: null, clientId: 'b1-proto-consumer', clientHost: '/172.17.0.1', subscribedTopicNames: ['b1.offsets.demo'],
      subscribedTopicRegex: '', rebalanceTimeoutMs: 300000, serverAssignor: null, classicMemberMetadata: null,
    }),
    `{"type":"5","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`,
    // Tag 0 absent: Kafka reads an empty ClassicMemberMetadata and prints nothing for it.
    '{"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"b1-proto-consumer","clientHost":"/172.17.0.1","subscribedTopicNames":["b1.offsets.demo"],"subscribedTopicRegex":"","rebalanceTimeoutMs":300000,"serverAssignor":null}}',
  );
  // Tag 0 present holding null, as Kafka 4.3 writes members of the consumer protocol (TOOL-OUTPUTS.md).
  add(
    keyBytes(5, ConsumerGroupMemberMetadataKey, { groupId: G, memberId: MEMBER }),
    withNullTag0(valueBytes(0, ConsumerGroupMemberMetadataValue, {
      instanceId: null, rackId: null, clientId: 'b1-proto-consumer', clientHost: '/172.17.0.1', subscribedTopicNames: ['b1.offsets.demo'],
      subscribedTopicRegex: '', rebalanceTimeoutMs: 300000, serverAssignor: 'range', classicMemberMetadata: null,
    })),
    `{"type":"5","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`,
    '{"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"b1-proto-consumer","clientHost":"/172.17.0.1","subscribedTopicNames":["b1.offsets.demo"],"subscribedTopicRegex":"","rebalanceTimeoutMs":300000,"serverAssignor":"range","classicMemberMetadata":null}}',
  );
  add(
    keyBytes(5, ConsumerGroupMemberMetadataKey, { groupId: G, memberId: 'classic-1' }),
    valueBytes(0, ConsumerGroupMemberMetadataValue, {
      instanceId: 'i1', rackId: 'r1', clientId: 'c', clientHost: '/h', subscribedTopicNames: [], subscribedTopicRegex: 'b1\\..*',
      rebalanceTimeoutMs: 1, serverAssignor: 'range',
      classicMemberMetadata: { sessionTimeoutMs: 45000, supportedProtocols: [{ name: 'range', metadata: Buffer.from([0, 3]) }] },
    }),
    `{"type":"5","data":{"groupId":"${G}","memberId":"classic-1"}}`,
    '{"version":"0","data":{"instanceId":"i1","rackId":"r1","clientId":"c","clientHost":"/h","subscribedTopicNames":[],"subscribedTopicRegex":"b1\\\\..*","rebalanceTimeoutMs":1,"serverAssignor":"range","classicMemberMetadata":{"sessionTimeoutMs":45000,"supportedProtocols":[{"name":"range","metadata":"AAM="}]}}}',
  );
  add(
    keyBytes(3, ConsumerGroupMetadataKey, { groupId: G }),
    valueBytes(0, ConsumerGroupMetadataValue, { epoch: 2, metadataHash: -8376696857400379205n }),
    `{"type":"3","data":{"groupId":"${G}"}}`,
    '{"version":"0","data":{"epoch":2,"metadataHash":-8376696857400379205}}',
  );
  add(
    keyBytes(3, ConsumerGroupMetadataKey, { groupId: G }),
    valueBytes(0, ConsumerGroupMetadataValue, { epoch: 0, metadataHash: 0n }),
    `{"type":"3","data":{"groupId":"${G}"}}`,
    '{"version":"0","data":{"epoch":0}}',
  );
  add(
    keyBytes(4, ConsumerGroupPartitionMetadataKey, { groupId: G }),
    valueBytes(0, ConsumerGroupPartitionMetadataValue, {
      topics: [{ topicId: TOPIC_ID, topicName: 'b1.offsets.demo', numPartitions: 3, partitionMetadata: [{ partition: 0, racks: ['r1'] }] }],
    }),
    `{"type":"4","data":{"groupId":"${G}"}}`,
    `{"version":"0","data":{"topics":[{"topicId":"${TOPIC_ID}","topicName":"b1.offsets.demo","numPartitions":3,"partitionMetadata":[{"partition":0,"racks":["r1"]}]}]}}`,
  );
  add(
    keyBytes(7, ConsumerGroupTargetAssignmentMemberKey, { groupId: G, memberId: MEMBER }),
    valueBytes(0, ConsumerGroupTargetAssignmentMemberValue, { topicPartitions: [{ topicId: TOPIC_ID, partitions: [0, 1, 2] }] }),
    `{"type":"7","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`,
    `{"version":"0","data":{"topicPartitions":[{"topicId":"${TOPIC_ID}","partitions":[0,1,2]}]}}`,
  );
  add(
    keyBytes(6, ConsumerGroupTargetAssignmentMetadataKey, { groupId: G }),
    valueBytes(0, ConsumerGroupTargetAssignmentMetadataValue, { assignmentEpoch: 2, assignmentTimestamp: 1793248006150n }),
    `{"type":"6","data":{"groupId":"${G}"}}`,
    '{"version":"0","data":{"assignmentEpoch":2,"assignmentTimestamp":1793248006150}}',
  );
  add(
    keyBytes(6, ConsumerGroupTargetAssignmentMetadataKey, { groupId: G }),
    valueBytes(0, ConsumerGroupTargetAssignmentMetadataValue, { assignmentEpoch: 3, assignmentTimestamp: 0n }),
    `{"type":"6","data":{"groupId":"${G}"}}`,
    '{"version":"0","data":{"assignmentEpoch":3}}',
  );
  add(
    keyBytes(8, ConsumerGroupCurrentMemberAssignmentKey, { groupId: G, memberId: MEMBER }),
    valueBytes(0, ConsumerGroupCurrentMemberAssignmentValue, {
      memberEpoch: 2, previousMemberEpoch: 0, state: 0,
      assignedPartitions: [{ topicId: TOPIC_ID, partitions: [0, 1, 2], assignmentEpochs: [2, 2, 2] }],
      partitionsPendingRevocation: [{ topicId: TOPIC_ID, partitions: [5], assignmentEpochs: null }],
    }),
    `{"type":"8","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`,
    `{"version":"0","data":{"memberEpoch":2,"previousMemberEpoch":0,"state":0,"assignedPartitions":[{"topicId":"${TOPIC_ID}","partitions":[0,1,2],"assignmentEpochs":[2,2,2]}],"partitionsPendingRevocation":[{"topicId":"${TOPIC_ID}","partitions":[5]}]}}`,
  );
  add(
    keyBytes(16, ConsumerGroupRegularExpressionKey, { groupId: G, regularExpression: 'b1\\..*' }),
    valueBytes(0, ConsumerGroupRegularExpressionValue, { topics: ['b1.a', 'b1.b'], version: 17n, timestamp: 1793248006150n }),
    `{"type":"16","data":{"groupId":"${G}","regularExpression":"b1\\\\..*"}}`,
    '{"version":"0","data":{"topics":["b1.a","b1.b"],"version":17,"timestamp":1793248006150}}',
  );
  // KIP-848 tombstones.
  add(keyBytes(8, ConsumerGroupCurrentMemberAssignmentKey, { groupId: G, memberId: MEMBER }), null, `{"type":"8","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`, '<DELETE>');
  add(keyBytes(5, ConsumerGroupMemberMetadataKey, { groupId: G, memberId: MEMBER }), null, `{"type":"5","data":{"groupId":"${G}","memberId":"${MEMBER}"}}`, '<DELETE>');
  add(keyBytes(3, ConsumerGroupMetadataKey, { groupId: G }), null, `{"type":"3","data":{"groupId":"${G}"}}`, '<DELETE>');
  // Type 2 tombstone.
  add(keyBytes(2, GroupMetadataKey, { group: 'b1.offsets.group' }), null, '{"type":"2","data":{"group":"b1.offsets.group"}}', '<DELETE>');
  return recs;
}

/** A record of a type neither we nor Kafka know (offset given by its place in the segment). */
export function unknownTypeRecord(offset: number): FixtureRecord {
  const w = new Writer(16);
  w.int16(99);
  w.int16(0);
  return { record: { key: Buffer.from(w.finish()), value: Buffer.from([0, 0]) }, key: `Unknown record type 99 at offset ${offset}, skipping.` };
}

/**
 * The fixture records as a segment: the first `batched` records in one batch, the others one
 * batch each (from base offset 0), then the unknown-type record in its own batch.
 */
export function fixtureSegment(timestamp = 1793247619231n, batched = 3): { segment: Buffer; records: FixtureRecord[] } {
  const records = fixtureRecords();
  const batches: Buffer[] = [];
  batches.push(encodeRecordBatch({ baseOffset: 0n, timestamp, records: records.slice(0, batched).map((r) => r.record), partitionLeaderEpoch: 0 }));
  for (let i = batched; i < records.length; i++) {
    batches.push(encodeRecordBatch({ baseOffset: BigInt(i), timestamp: timestamp + BigInt(i), records: [records[i]!.record], partitionLeaderEpoch: 0 }));
  }
  const unknown = unknownTypeRecord(records.length);
  batches.push(encodeRecordBatch({ baseOffset: BigInt(records.length), timestamp, records: [unknown.record], partitionLeaderEpoch: 0 }));
  records.push(unknown);
  return { segment: Buffer.concat(batches), records };
}
