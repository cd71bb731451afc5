import { pino } from 'pino';
import type { Time } from '../../../src/util/time.js';
import { Writable } from 'node:stream';
import { BrokerConfig } from '../../../src/config.js';
import { ClassicGroupCoordinator, classicGroupsOf } from '../../../src/coordinator/classic/classic-coordinator.js';
import { GroupMap } from '../../../src/coordinator/group-map.js';
import { consumerGroupsOf } from '../../../src/coordinator/consumer/group-store.js';
import { ConsumerGroupCoordinator, type ConsumerTopicSource } from '../../../src/coordinator/consumer/consumer-coordinator.js';
import type { JoinGroupRequest } from '../../../src/protocol/messages/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../../src/protocol/messages/JoinGroupResponse.js';
import type { SyncGroupRequest } from '../../../src/protocol/messages/SyncGroupRequest.js';
import type { HeartbeatRequest } from '../../../src/protocol/messages/HeartbeatRequest.js';
import type { LeaveGroupRequest, MemberIdentity } from '../../../src/protocol/messages/LeaveGroupRequest.js';
import type { LeaveGroupResponse, MemberResponse } from '../../../src/protocol/messages/LeaveGroupResponse.js';
import { leaveGroupResponseAt, leavingMembers } from '../../../src/apis/13-leave-group.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FakeTime } from '../../support/fake-time.js';
import { MemoryGroupLog } from '../../support/memory-group-log.js';

/** Offsets the coordinator consults, held in a set (a stand-in for OffsetStore's storage). */
export class FakeOffsets {
  readonly groups = new Set<string>();
  readonly deleted: string[] = [];
  hasOffsets(groupId: string): boolean {
    return this.groups.has(groupId);
  }
  groupIds(): Iterable<string> {
    return this.groups;
  }
  tombstoneGroup(groupId: string): [] {
    this.groups.delete(groupId);
    this.deleted.push(groupId);
    return [];
  }
}

export const SESSION_MS = 10_000;
export const REBALANCE_MS = 30_000;

export function setup<T extends Time = FakeTime>(config: Record<string, string | number> = {}, time: T = new FakeTime() as unknown as T) {
  const groupLog = new MemoryGroupLog();
  const offsets = new FakeOffsets();
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const runtime = groupLog.runtime();
  const groupMap = new GroupMap();
  const coordinator = new ClassicGroupCoordinator({ config: new BrokerConfig(config), log, time, writer: runtime, offsets, groups: classicGroupsOf(groupMap) });
  runtime.register(coordinator);
  return { time, groupLog, runtime, groupMap, offsets, coordinator, logLines };
}

export type Harness = ReturnType<typeof setup<FakeTime>>;

/** A topic source over fixed topics ({ name, topicId, partitionCount }). */
export function fixedTopics(...list: Array<{ name: string; topicId: string; partitionCount: number }>): ConsumerTopicSource {
  return { get: (n) => list.find((t) => t.name === n), getById: (id) => list.find((t) => t.topicId === id), list: () => list };
}

/** A KIP-848 coordinator sharing the harness's clock, log and offsets, bridged to its classic coordinator. */
export function consumerCoordinatorFor(h: Harness, topics: ConsumerTopicSource, config: Record<string, string | number> = {}): ConsumerGroupCoordinator {
  const consumer = new ConsumerGroupCoordinator({
    config: new BrokerConfig({ 'group.consumer.assignment.interval.ms': 0, ...config }),
    log: pino({ level: 'silent' }),
    time: h.time,
    writer: h.runtime,
    topics,
    offsets: h.offsets,
    classic: h.coordinator,
    groups: consumerGroupsOf(h.groupMap),
  });
  h.runtime.register(consumer.shard);
  return consumer;
}

export const client = (apiVersion = 5, clientId = 'client-1') => ({ apiVersion, clientId, clientHost: '/127.0.0.1' });

export function joinRequest(over: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: 'g',
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: REBALANCE_MS,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from('sub-range') }],
    reason: null,
    ...over,
  };
}

export function syncRequest(over: Partial<SyncGroupRequest> = {}): SyncGroupRequest {
  return { groupId: 'g', generationId: 1, memberId: '', groupInstanceId: null, protocolType: null, protocolName: null, assignments: [], ...over };
}

export function heartbeatRequest(over: Partial<HeartbeatRequest> = {}): HeartbeatRequest {
  return { groupId: 'g', generationId: 1, memberId: '', groupInstanceId: null, ...over };
}

/** Lets resolved promises and their continuations run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

/** Observes a promise without awaiting it, so a test can assert it is still parked. */
export function track<T>(promise: Promise<T>): { readonly done: boolean; readonly value: T | undefined } {
  const state: { done: boolean; value: T | undefined } = { done: false, value: undefined };
  void promise.then((v) => {
    state.done = true;
    state.value = v;
  });
  return state;
}

/**
 * A dynamic member's two-phase join at v5: MEMBER_ID_REQUIRED first, then the parked rejoin with
 * the id handed out. Returns the member id and the (still parked) second JoinGroup.
 */
export async function startDynamicJoin(h: Harness, clientId: string, over: Partial<JoinGroupRequest> = {}) {
  const first = await h.coordinator.joinGroup(joinRequest(over), client(5, clientId));
  if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) throw new Error(`expected MEMBER_ID_REQUIRED, got ${first.errorCode}`);
  const memberId = first.memberId;
  const joined = h.coordinator.joinGroup(joinRequest({ ...over, memberId }), client(5, clientId));
  return { memberId, joined };
}

/** Builds a Stable group of one dynamic member (generation 1) and returns its member id. */
export async function stableSingleMember(h: Harness, clientId = 'client-1', assignment = Buffer.from('a1')) {
  const { memberId, joined } = await startDynamicJoin(h, clientId);
  h.time.advance(0); // group.initial.rebalance.delay.ms = 0: the initial join completes on the next tick
  const join: JoinGroupResponse = await joined;
  const sync = await h.coordinator.syncGroup(syncRequest({ memberId, generationId: join.generationId, assignments: [{ memberId, assignment }] }), { apiVersion: 3 });
  if (sync.errorCode !== ErrorCode.NONE) throw new Error(`sync failed with ${sync.errorCode}`);
  return memberId;
}

/** LeaveGroup as the API handler sends it to a coordinator and shapes the answer for `apiVersion` (apis/13-leave-group.ts). */
export async function leaveGroupAt(
  coordinator: { leaveGroup(groupId: string, members: readonly MemberIdentity[]): Promise<{ errorCode: number; members: MemberResponse[] }> },
  req: LeaveGroupRequest,
  ctx: { apiVersion: number },
): Promise<LeaveGroupResponse> {
  const result = await coordinator.leaveGroup(req.groupId, leavingMembers(req, ctx.apiVersion));
  return leaveGroupResponseAt(ctx.apiVersion, result.errorCode, result.members);
}
