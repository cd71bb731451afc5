/**
 * A two-member KIP-848 consumer group built with raw ConsumerGroupHeartbeat requests (as
 * test/e2e/consumer-group-raw.test.ts does), for tests of the views onto consumer groups
 * (`groups --describe`, the admin HTTP API).
 */
import type { ServerHandle } from '../../src/index.js';
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/messages/ConsumerGroupHeartbeatRequest.js';
import { RawClient } from './raw-client.js';

/** Settings that make the coordinator assign at once and time out slowly. */
export const KIP848_CONFIG = {
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.assignment.interval.ms': 0,
};

type Owned = Array<{ topicId: string; partitions: number[] }>;

/** A ConsumerGroupHeartbeat request with Kafka's defaults for every field not given. */
export function hb(groupId: string, memberId: string, memberEpoch: number, extra: Partial<ConsumerGroupHeartbeatRequest> = {}): ConsumerGroupHeartbeatRequest {
  return {
    groupId,
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: null,
    ...extra,
  };
}

export interface RawMember {
  memberId: string;
  clientId: string;
  epoch: number;
  owned: number[];
}

export interface RawGroup {
  client: RawClient;
  groupId: string;
  topicId: string;
  a: RawMember;
  b: RawMember;
  /** Member B's target partitions (what A must give up), known once B joined. */
  targetB: number[];
  /** A heartbeats revoking what B's target needs (epoch 3), then B takes it and acknowledges: Stable. */
  settle(): Promise<void>;
  /** OffsetCommit v9 by the partition's owner at its current epoch. */
  commit(member: RawMember, topic: string, offsets: Record<number, bigint>): Promise<number[]>;
  /** Both members leave (epoch -1): the group is Empty. */
  leave(): Promise<void>;
  close(): void;
}

const partitionsOf = (a: { topicPartitions: Owned } | null): number[] => (a ? a.topicPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y) : []);

/**
 * Member A (`memberIds[0]`, client id `client-a`) joins `topic` and acknowledges every partition;
 * then member B (`client-b`) joins. The group is left Reconciling: A still owns what B's target
 * holds. `settle()` finishes the reconciliation.
 */
export async function rawTwoMemberGroup(server: ServerHandle, groupId: string, topic: string, memberIds: [string, string]): Promise<RawGroup> {
  const topicId = server.broker.topics.get(topic)!.topicId;
  const client = await RawClient.connect(server.port);
  const send = async (member: RawMember, req: ConsumerGroupHeartbeatRequest) => {
    const res = await client.send(68, 1, req, member.clientId);
    if (res.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat for ${member.memberId} failed: error ${res.errorCode}`);
    member.epoch = res.memberEpoch;
    return res;
  };
  const owned = (m: RawMember): Owned => [{ topicId, partitions: m.owned }];
  const join = (m: RawMember) => send(m, hb(groupId, m.memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }));

  const a: RawMember = { memberId: memberIds[0], clientId: 'client-a', epoch: 0, owned: [] };
  const b: RawMember = { memberId: memberIds[1], clientId: 'client-b', epoch: 0, owned: [] };
  a.owned = partitionsOf((await join(a)).assignment);
  await send(a, hb(groupId, a.memberId, a.epoch, { topicPartitions: owned(a) }));
  await join(b);
  const described = (await client.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!;
  const targetB = described.members.find((m) => m.memberId === b.memberId)!.targetAssignment.topicPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y);

  return {
    client,
    groupId,
    topicId,
    a,
    b,
    targetB,
    async settle() {
      // A is told what it keeps; acknowledging only that moves it to the new epoch.
      const told = partitionsOf((await send(a, hb(groupId, a.memberId, a.epoch, { topicPartitions: owned(a) }))).assignment);
      a.owned = told;
      await send(a, hb(groupId, a.memberId, a.epoch, { topicPartitions: owned(a) }));
      b.owned = partitionsOf((await send(b, hb(groupId, b.memberId, b.epoch, { topicPartitions: [] }))).assignment);
      await send(b, hb(groupId, b.memberId, b.epoch, { topicPartitions: owned(b) }));
    },
    async commit(member, name, offsets) {
      const res = await client.send(8, 9, {
        groupId,
        generationIdOrMemberEpoch: member.epoch,
        memberId: member.memberId,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [{ name, topicId: '', partitions: Object.entries(offsets).map(([p, o]) => ({ partitionIndex: Number(p), committedOffset: o, committedLeaderEpoch: -1, committedMetadata: '' })) }],
      });
      return res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode));
    },
    async leave() {
      for (const m of [b, a]) await send(m, hb(groupId, m.memberId, -1));
    },
    close() {
      client.socket.destroy();
    },
  };
}
