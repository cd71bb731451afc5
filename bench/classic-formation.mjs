// Classic group formation: N members (one connection each, raw JoinGroup v5 / SyncGroup v3 /
// Heartbeat v3 on our codecs, protocol type `consumer`, one `range` protocol with a
// ConsumerProtocolSubscription v0 of one topic) join at the same moment, as Kafka's Java consumer
// does with the classic protocol: join (again with the member id a MEMBER_ID_REQUIRED answer
// gives), sync (the leader assigns the topic's partitions round-robin over the members it was
// given), then heartbeat every BENCH_CLASSIC_HEARTBEAT_MS and rejoin on REBALANCE_IN_PROGRESS.
// Measured until the group is stable as its members see it: all N synced at the same generation
// (the highest any join returned) and their assignments cover the topic once each. Ours, Kafka and
// librdkafka's mock run with `group.initial.rebalance.delay.ms=0` (kfake has no initial delay).
// Each server fresh per member count, after BENCH_CLASSIC_WARMUPS (1) unmeasured warm-up groups of
// BENCH_CLASSIC_WARMUP_MEMBERS (100). BENCH_CLASSIC_PORT/_PID measure a broker already running.
// Env: BENCH_CLASSIC_MEMBERS (100,1000), BENCH_CLASSIC_PARTITIONS (200, or one per member when
// they are more), BENCH_SERVERS (ours, echo (the Node floor: bench/formation.mjs echoFloor) and the
// peers), BENCH_CLASSIC_HEARTBEAT_MS
// (100), BENCH_CLASSIC_TIMEOUT_MS (20000: a group not stable by then is
// reported as failed). librdkafka's mock completes a generation as soon as the
// leader's SyncGroup carries every member's assignment and answers the followers that sync after
// it INVALID_REQUEST; these members rejoin then, as on any other sync error, so with a leader
// that assigns at once (as here) it may not settle in time: the table says so.
// Figures for reading, never asserted by tests.
import { errorName } from '../dist/protocol/errors.js';
import { BenchClient } from './lib.mjs';
import { formGroups, formationOptions, groupFormation } from './formation.mjs';

const MEMBER_ID_REQUIRED = 79;
const REBALANCE_IN_PROGRESS = 27;
const SESSION_TIMEOUT_MS = 30000;
const API_NAMES = { 11: 'JoinGroup', 12: 'Heartbeat', 13: 'LeaveGroup', 14: 'SyncGroup' };

export function classicBenchOptions() {
  const options = formationOptions('BENCH_CLASSIC', 20_000);
  // The floor (bench/formation.mjs echoFloor) runs unless BENCH_SERVERS leaves it out.
  if (!process.env.BENCH_SERVERS) options.servers = ['ours', 'echo', ...options.servers.filter((s) => s !== 'ours')];
  return options;
}

/** ConsumerProtocolSubscription v0: version, topics, user data (null). */
function subscription(topic) {
  const name = Buffer.from(topic);
  const b = Buffer.alloc(2 + 4 + 2 + name.length + 4);
  let at = b.writeInt16BE(0, 0);
  at = b.writeInt32BE(1, at);
  at = b.writeInt16BE(name.length, at);
  at += name.copy(b, at);
  b.writeInt32BE(-1, at);
  return b;
}

/** ConsumerProtocolAssignment v0: version, [topic, partitions], user data (null). */
function assignmentBytes(topic, partitions) {
  const name = Buffer.from(topic);
  const b = Buffer.alloc(2 + 4 + 2 + name.length + 4 + 4 * partitions.length + 4);
  let at = b.writeInt16BE(0, 0);
  at = b.writeInt32BE(1, at);
  at = b.writeInt16BE(name.length, at);
  at += name.copy(b, at);
  at = b.writeInt32BE(partitions.length, at);
  for (const p of partitions) at = b.writeInt32BE(p, at);
  b.writeInt32BE(-1, at);
  return b;
}

/** The partitions of a ConsumerProtocolAssignment (empty for an empty one). */
function assignedPartitions(bytes) {
  if (!bytes || bytes.length < 6) return [];
  let at = 2;
  const topics = bytes.readInt32BE(at);
  at += 4;
  const out = [];
  for (let t = 0; t < topics; t++) {
    at += 2 + bytes.readInt16BE(at);
    const n = bytes.readInt32BE(at);
    at += 4;
    for (let i = 0; i < n; i++, at += 4) out.push(bytes.readInt32BE(at));
  }
  return out;
}

/**
 * SyncGroup v3 response, read by hand: librdkafka's mock answers errors with a null assignment,
 * or none at all, which the schema does not allow (our codec refuses them).
 */
function decodeSyncGroupV3(r) {
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  return { throttleTimeMs, errorCode, assignment: r.remaining >= 4 ? r.nullableBytes(false) : null };
}

/** One member's loop; resolves when `done()` says the group is stable (leaving it when `state.leave`). */
async function runMember(port, groupId, topic, partitions, state, done) {
  const client = await BenchClient.connect(port);
  state.track(client);
  const member = { memberId: '', generation: -1, synced: -1, owned: [], requests: 0 };
  state.members.push(member);
  const send = (apiKey, version, body, decode) => {
    member.requests++;
    state.requests++;
    return client.send(apiKey, version, body, decode).catch((err) => {
      throw new Error(`${API_NAMES[apiKey]}: ${err.message}`);
    });
  };
  try {
    join: while (!done()) {
      const j = await send(11, 5, {
        groupId, sessionTimeoutMs: SESSION_TIMEOUT_MS, rebalanceTimeoutMs: 60000, memberId: member.memberId, groupInstanceId: null,
        protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(topic) }], reason: null,
      });
      if (j.errorCode === MEMBER_ID_REQUIRED) {
        member.memberId = j.memberId;
        continue;
      }
      if (j.errorCode === REBALANCE_IN_PROGRESS) continue;
      if (j.errorCode !== 0) throw new Error(`JoinGroup error ${j.errorCode}`);
      member.memberId = j.memberId;
      member.generation = j.generationId;
      state.maxGeneration = Math.max(state.maxGeneration, j.generationId);
      let assignments = [];
      if (j.leader === j.memberId) {
        const ids = j.members.map((m) => m.memberId).sort();
        const split = new Map(ids.map((id) => [id, []]));
        for (let p = 0; p < partitions; p++) split.get(ids[p % ids.length]).push(p);
        assignments = ids.map((id) => ({ memberId: id, assignment: assignmentBytes(topic, split.get(id)) }));
      }
      const s = await send(14, 3, { groupId, generationId: j.generationId, memberId: member.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments }, decodeSyncGroupV3);
      if (s.errorCode !== 0) {
        // REBALANCE_IN_PROGRESS: join again, as the Java consumer does; librdkafka's mock also
        // answers a sync of a generation it already moved past with other codes: the same.
        state.syncErrors.set(s.errorCode, (state.syncErrors.get(s.errorCode) ?? 0) + 1);
        continue;
      }
      member.synced = j.generationId;
      member.owned = assignedPartitions(s.assignment);
      state.changed();
      while (!done()) {
        await state.waitInterval();
        if (done()) break join;
        const h = await send(12, 3, { groupId, generationId: member.generation, memberId: member.memberId, groupInstanceId: null });
        if (h.errorCode === REBALANCE_IN_PROGRESS) continue join;
        if (h.errorCode !== 0) throw new Error(`Heartbeat error ${h.errorCode}`);
      }
    }
    // The answer is not read: librdkafka's mock leaves the v3 members array out of it.
    if (state.leave && member.memberId) await client.send(13, 3, { groupId, memberId: '', members: [{ memberId: member.memberId, groupInstanceId: null, reason: null }] }, () => null);
    return member;
  } finally {
    client.close();
  }
}

/** Forms one group of `n` members on `topic` (already created with `partitions` partitions). */
async function formGroup(port, topic, n, partitions, { heartbeatIntervalMs, timeoutMs, leave = false }) {
  const groupId = `g-${topic}`;
  const formation = groupFormation(n, timeoutMs, leave);
  const state = Object.assign(formation, {
    requests: 0,
    syncErrors: new Map(),
    maxGeneration: -1,
    // After every sync: stable when all n members are synced at the highest generation and own every partition once.
    changed: () => {
      if (formation.isStable() || state.members.length < n || !state.members.every((m) => m.synced === state.maxGeneration)) return;
      const owned = state.members.flatMap((m) => m.owned);
      if (owned.length !== partitions || new Set(owned).size !== partitions) return;
      state.generation = state.maxGeneration;
      formation.markStable();
    },
    waitInterval: () => formation.wait(heartbeatIntervalMs),
  });
  const { members, ms } = await formation.run(
    () => runMember(port, groupId, topic, partitions, state, formation.done),
    () => `${state.requests} requests; SyncGroup errors: ${[...state.syncErrors].map(([code, count]) => `${errorName(code)} x${count}`).join(', ') || 'none'}`,
  );
  const per = members.map((m) => m.requests).sort((a, b) => a - b);
  return { members: n, ms, requestsPerMember: state.requests / n, maxRequests: per.at(-1), generation: state.generation, syncErrors: Object.fromEntries(state.syncErrors) };
}

/** Every member count against every server in turn (formation.mjs `formGroups`). */
export function runClassicBench(options = classicBenchOptions()) {
  const configs = { 'group.initial.rebalance.delay.ms': 0 };
  return formGroups('classic', { ...options, configs }, (port, topic, n, { leave, partitions }) => formGroup(port, topic, n, partitions, { ...options, leave }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runClassicBench();
}
