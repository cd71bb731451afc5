// KIP-848 group formation: N members (one connection each, raw ConsumerGroupHeartbeat v1 on our
// codecs) subscribe to one topic at the same moment; each behaves as Kafka's Java consumer does
// (ConsumerMembershipManager): it heartbeats at once to join, and at once again after taking a
// new assignment (the acknowledgement, owned partitions sent), otherwise every heartbeat interval
// the coordinator returned. Measured until the group is stable as its members see it: all N
// joined, all at the same member epoch (the highest any heartbeat returned), and the partitions
// they own cover the topic once each, so every member owns its target at the group's epoch. The
// criterion needs no ConsumerGroupDescribe, which librdkafka's mock does not have, so every
// server is judged alike. Heartbeats sent per member and the group epoch reached are reported.
// The peers of bench/peers.mjs in BENCH_SERVERS run the same members after ours, member count by
// member count, with the same heartbeat interval (and, for Kafka, the same minimum and
// `group.consumer.assignment.interval.ms`; kfake and librdkafka's mock have no such configs).
// Each measured formation follows BENCH_KIP848_WARMUPS (1) unmeasured ones of
// BENCH_KIP848_WARMUP_MEMBERS (100) on the same server: a cold process measured 3-4x the
// heartbeats of a warm one (V8 still compiling, joins slow enough to interleave with the
// acknowledgements). Members join only once the broker's group coordinator assigns the new topic:
// Kafka's coordinator learns of a topic from its own copy of the metadata image a moment after
// CreateTopics answers, and members joining before then all settle at once with nothing assigned.
// `BENCH_KIP848_PORT=<port>` measures a broker already listening there instead (a Kafka 4.3.1
// started with the same group.consumer.* configs; `BENCH_KIP848_PID=<pid>`: its process, for its
// CPU time). BENCH_KIP848_MEMBERS (100,1000), BENCH_KIP848_PARTITIONS (200, or one per member
// when they are more), BENCH_KIP848_HEARTBEAT_MS
// (100), BENCH_KIP848_ASSIGNMENT_INTERVAL_MS (0), BENCH_KIP848_TIMEOUT_MS (120000: a group not
// stable by then is reported as failed), BENCH_SERVERS. Figures for reading, never asserted by tests.
import { randomUUID } from 'node:crypto';
import { BenchClient, envInt } from './lib.mjs';
import { formGroups, formationOptions, groupFormation } from './formation.mjs';

export function kip848BenchOptions() {
  const options = formationOptions('BENCH_KIP848', 120_000);
  // The echo floor (bench/formation.mjs) is for the classic rows, whose requests it imitates.
  return { ...options, servers: options.servers.filter((s) => s !== 'echo'), assignmentIntervalMs: envInt('BENCH_KIP848_ASSIGNMENT_INTERVAL_MS', 0) };
}

const ownedCount = (owned) => owned.reduce((n, t) => n + t.partitions.length, 0);

/** One member's loop; resolves when `done()` says the group is stable. */
async function runMember(port, groupId, topic, state, done, joinRegex) {
  const client = await BenchClient.connect(port);
  state.track(client);
  const member = { memberId: randomUUID().replace(/-/g, '').slice(0, 22), epoch: 0, owned: [], heartbeats: 0, sendOwned: true };
  state.members.push(member);
  try {
    for (;;) {
      if (done()) {
        // Warm-up groups leave (memberEpoch -1), so their members' expiry never lands in the measured window.
        if (state.leave) await client.send(68, 1, { groupId, memberId: member.memberId, memberEpoch: -1, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null });
        return member;
      }
      const joining = member.epoch === 0;
      const res = await client.send(68, 1, {
        groupId,
        memberId: member.memberId,
        memberEpoch: member.epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: joining ? 300000 : -1,
        subscribedTopicNames: joining ? [topic] : null,
        subscribedTopicRegex: joining ? joinRegex : null,
        serverAssignor: null,
        topicPartitions: member.sendOwned ? member.owned : null,
      });
      member.heartbeats++;
      state.heartbeats++;
      if (res.errorCode !== 0) throw new Error(`heartbeat error ${res.errorCode}: ${res.errorMessage}`);
      member.epoch = res.memberEpoch;
      state.epochs.add(res.memberEpoch);
      member.sendOwned = false;
      if (res.assignment) {
        // Took the new assignment (revoked and assigned at once): acknowledge it right away.
        member.owned = res.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] }));
        member.sendOwned = true;
      }
      state.changed();
      if (res.assignment) continue;
      await state.waitInterval(res.heartbeatIntervalMs);
    }
  } finally {
    client.close();
  }
}

/** Forms one group of `n` members on `topic` (already created with `partitions` partitions). */
async function formGroup(port, topic, n, partitions, { joinRegex = null, timeoutMs, leave = false }) {
  const groupId = `g-${topic}`;
  const formation = groupFormation(n, timeoutMs, leave);
  const state = Object.assign(formation, {
    heartbeats: 0,
    epochs: new Set(),
    changed: () => check(),
    waitInterval: formation.wait,
  });
  // After every answer: stable when all n members sit at the highest epoch seen and own every partition once.
  let maxEpoch = 0;
  const check = () => {
    for (const m of state.members) maxEpoch = Math.max(maxEpoch, m.epoch);
    if (formation.isStable() || state.members.length < n || !state.members.every((m) => m.epoch === maxEpoch)) return;
    if (state.members.reduce((sum, m) => sum + ownedCount(m.owned), 0) !== partitions) return;
    const union = new Set(state.members.flatMap((m) => m.owned.flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`))));
    if (union.size !== partitions) return;
    state.groupEpoch = maxEpoch;
    formation.markStable();
  };
  const { members, ms } = await formation.run(() => runMember(port, groupId, topic, state, formation.done, joinRegex), () => `${state.heartbeats} heartbeats`);
  const perMember = members.map((m) => m.heartbeats).sort((a, b) => a - b);
  return { members: n, ms, heartbeatsPerMember: state.heartbeats / n, maxHeartbeats: perMember.at(-1), groupEpoch: state.groupEpoch, epochsSeen: state.epochs.size };
}

/** Every member count against every server in turn (formation.mjs `formGroups`). */
export function runKip848Bench(options, extraArgs = []) {
  const { heartbeatIntervalMs, assignmentIntervalMs, timeoutMs } = options;
  const configs = {
    'group.consumer.min.heartbeat.interval.ms': heartbeatIntervalMs,
    'group.consumer.heartbeat.interval.ms': heartbeatIntervalMs,
    'group.consumer.assignment.interval.ms': assignmentIntervalMs,
  };
  return formGroups('kip848', { ...options, servers: options.servers ?? ['ours'], configs, extraArgs }, async (port, topic, n, { server, leave, partitions }) => {
    // librdkafka's mock aborts (an assertion) on a heartbeat whose topic names come without a
    // regex; its members join with an empty one. The others get none, as the Java consumer sends.
    const joinRegex = server === 'librdkafka-mock' ? '' : null;
    await waitUntilAssignable(port, topic, partitions, joinRegex);
    return formGroup(port, topic, n, partitions, { joinRegex, timeoutMs, leave });
  });
}

const probeHeartbeat = (groupId, memberId, memberEpoch, topic, joinRegex) => ({
  groupId, memberId, memberEpoch, instanceId: null, rackId: null,
  rebalanceTimeoutMs: memberEpoch === 0 ? 30000 : -1,
  subscribedTopicNames: memberEpoch === 0 ? [topic] : null,
  subscribedTopicRegex: memberEpoch === 0 ? joinRegex : null, serverAssignor: null,
  topicPartitions: memberEpoch === 0 ? [] : null,
});

/**
 * Until a throwaway group's member is assigned every partition of `topic` (the member leaves and
 * the group is deleted, with the DeleteGroups version the server advertises; a server without
 * DeleteGroups keeps the empty group).
 */
async function waitUntilAssignable(port, topic, partitions, joinRegex) {
  for (;;) {
    const admin = await BenchClient.connect(port);
    try {
      const groupId = `probe-${topic}`;
      const memberId = randomUUID().replace(/-/g, '').slice(0, 22);
      const joined = await admin.send(68, 1, probeHeartbeat(groupId, memberId, 0, topic, joinRegex));
      if (joined.errorCode === 0) await admin.send(68, 1, probeHeartbeat(groupId, memberId, -1, topic, joinRegex));
      // DeleteGroups at a version the server advertises (v2 is flexible; librdkafka's mock serves v0-1).
      const deleteVersion = await admin.usableVersion(42, 2);
      if (deleteVersion !== null) await admin.send(42, deleteVersion, { groupsNames: [groupId] }).catch(() => {});
      const assigned = joined.assignment?.topicPartitions.reduce((k, t) => k + t.partitions.length, 0) ?? 0;
      if (assigned === partitions) return;
    } finally {
      admin.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runKip848Bench(kip848BenchOptions());
}
