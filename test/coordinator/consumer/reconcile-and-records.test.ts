import { describe, expect, it } from 'vitest';
import { reconcile } from '../../../src/coordinator/consumer/current-assignment-builder.js';
import { MemberState, newMember, type ConsumerGroupMember } from '../../../src/coordinator/consumer/member.js';
import { decodeRecord, encodeKey, encodeValue, type CoordinatorRecord } from '../../../src/coordinator/records.js';
import { BrokerConfig, ConfigError } from '../../../src/config.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAQ';
const member = (epoch: number, parts: Array<[number, number]>): ConsumerGroupMember => ({
  ...newMember('m'),
  memberEpoch: epoch,
  previousMemberEpoch: epoch - 1,
  assigned: new Map([[T, new Map(parts)]]),
});

describe('CurrentAssignmentBuilder', () => {
  it('holds revocation until the member stops reporting the partition, then moves to the target epoch', () => {
    const m = member(1, [[0, 1], [1, 1]]);
    const target = new Map([[T, new Set([0])]]);
    const step1 = reconcile({ member: m, targetEpoch: 2, target, currentPartitionEpoch: () => -1, owned: [{ topicId: T, partitions: [0, 1] }] });
    expect(step1.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(step1.memberEpoch).toBe(1);
    expect([...step1.pendingRevocation.get(T)!.keys()]).toEqual([1]);
    const step2 = reconcile({ member: step1, targetEpoch: 2, target, currentPartitionEpoch: () => -1, owned: [{ topicId: T, partitions: [0] }] });
    expect(step2.state).toBe(MemberState.STABLE);
    expect(step2.memberEpoch).toBe(2);
    expect(step2.assigned.get(T)!.get(0)).toBe(1); // keeps the epoch it was assigned at (KIP-1251)
  });

  it('waits in UNRELEASED_PARTITIONS while another member holds a target partition', () => {
    const m = member(1, []);
    const target = new Map([[T, new Set([0, 1])]]);
    const r = reconcile({ member: m, targetEpoch: 2, target, currentPartitionEpoch: (_t, p) => (p === 1 ? 1 : -1), owned: [] });
    expect(r.state).toBe(MemberState.UNRELEASED_PARTITIONS);
    expect([...r.assigned.get(T)!.entries()]).toEqual([[0, 2]]);
  });
});

describe('KIP-848 records', () => {
  it('round-trip types 3, 5, 6, 7, 8 and 16, and read type 4', () => {
    const records: CoordinatorRecord[] = [
      { kind: 'cg-metadata', groupId: 'g', value: { epoch: 2, metadataHash: -5n } },
      { kind: 'cg-member-metadata', groupId: 'g', memberId: 'm', value: { instanceId: null, rackId: null, clientId: 'c', clientHost: '/1.2.3.4', subscribedTopicNames: ['t'], subscribedTopicRegex: '', rebalanceTimeoutMs: 300000, serverAssignor: 'range', classicMemberMetadata: null } },
      { kind: 'cg-target-metadata', groupId: 'g', value: { assignmentEpoch: 2, assignmentTimestamp: 123n } },
      { kind: 'cg-target-member', groupId: 'g', memberId: 'm', value: { topicPartitions: [{ topicId: T, partitions: [0, 1] }] } },
      { kind: 'cg-current-assignment', groupId: 'g', memberId: 'm', value: { memberEpoch: 2, previousMemberEpoch: 0, state: 0, assignedPartitions: [{ topicId: T, partitions: [0, 1], assignmentEpochs: [2, 2] }], partitionsPendingRevocation: [] } },
      { kind: 'cg-regex', groupId: 'g', regex: 't.*', value: { topics: ['t'], version: 1n, timestamp: 5n } },
      { kind: 'cg-partition-metadata', groupId: 'g', value: null },
    ];
    for (const r of records) expect(decodeRecord(encodeKey(r), encodeValue(r))).toEqual(r);
    expect(encodeKey(records[0]!).readInt16BE(0)).toBe(3);
  });
});

describe('group.consumer.* config validation', () => {
  it('checks bounds as GroupCoordinatorConfig', () => {
    expect(() => new BrokerConfig({ 'group.consumer.session.timeout.ms': 1000 })).toThrow(ConfigError);
    expect(() => new BrokerConfig({ 'group.consumer.heartbeat.interval.ms': 3000, 'group.consumer.min.heartbeat.interval.ms': 100, 'group.consumer.session.timeout.ms': 2000, 'group.consumer.min.session.timeout.ms': 1000 })).toThrow(/heartbeat.interval.ms/);
    expect(() => new BrokerConfig({ 'group.consumer.assignors': 'sticky' })).toThrow(/group.consumer.assignors/);
    expect(new BrokerConfig({ 'group.consumer.session.timeout.ms': 2000, 'group.consumer.min.session.timeout.ms': 1000, 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.min.heartbeat.interval.ms': 100 }).int('group.consumer.session.timeout.ms')).toBe(2000);
  });
});
