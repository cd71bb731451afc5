// KIP-848 group formation: N members (one connection each, raw ConsumerGroupHeartbeat v1 on our
// codecs) subscribe to one topic at the same moment; each behaves as Kafka's Java consumer does
// (ConsumerMembershipManager): it heartbeats at once to join, and at once again after taking a
// new assignment (the acknowledgement, owned partitions sent), otherwise every heartbeat interval
// the coordinator returned. Measured until every member owns its target at the group's epoch
// (checked with ConsumerGroupDescribe), the heartbeats sent per member and the group epochs seen.
// Each measured formation follows an unmeasured one of BENCH_KIP848_WARMUP_MEMBERS (100) on the
// same server: a cold process measured 3-4x the heartbeats of a warm one (V8 still compiling,
// joins slow enough to interleave with the acknowledgements). Figures for reading, never asserted
// by tests. `BENCH_KIP848_PORT=<port>` measures a broker already listening there instead (a Kafka
// 4.3.1 started with the same group.consumer.* configs; `BENCH_KIP848_PID=<pid>`: its process, for
// its CPU time). Members join only once the broker's group coordinator assigns the new topic:
// Kafka's coordinator learns of a topic from its own copy of the metadata image a moment after
// CreateTopics answers, and members joining before then all settle at once with nothing assigned.
import { randomUUID } from 'node:crypto';
import { BenchClient, startCliServer, stopChild, envInt, processCpuMs } from './lib.mjs';

export function kip848BenchOptions() {
  return {
    members: (process.env.BENCH_KIP848_MEMBERS ?? '100').split(',').map(Number),
    partitions: envInt('BENCH_KIP848_PARTITIONS', 200),
    heartbeatIntervalMs: envInt('BENCH_KIP848_HEARTBEAT_MS', 100),
    assignmentIntervalMs: envInt('BENCH_KIP848_ASSIGNMENT_INTERVAL_MS', 0),
    externalPort: envInt('BENCH_KIP848_PORT', 0),
    externalPid: envInt('BENCH_KIP848_PID', 0),
    warmupMembers: envInt('BENCH_KIP848_WARMUP_MEMBERS', 100),
  };
}

const sortedParts = (a) => (a ? a.topicPartitions.flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`)).sort() : null);

/** One member's loop; resolves when `done()` says the group is stable. */
async function runMember(port, groupId, topic, state, done) {
  const client = await BenchClient.connect(port);
  const member = { memberId: randomUUID().replace(/-/g, '').slice(0, 22), epoch: 0, owned: [], heartbeats: 0, sendOwned: true };
  state.members.push(member);
  try {
    for (;;) {
      if (done()) return member;
      const joining = member.epoch === 0;
      const res = await client.send(68, 1, {
        groupId,
        memberId: member.memberId,
        memberEpoch: member.epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: joining ? 300000 : -1,
        subscribedTopicNames: joining ? [topic] : null,
        subscribedTopicRegex: null,
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
        state.changed();
        continue;
      }
      await state.waitInterval(res.heartbeatIntervalMs);
    }
  } finally {
    client.close();
  }
}

const probeHeartbeat = (groupId, memberId, memberEpoch, topic) => ({
  groupId, memberId, memberEpoch, instanceId: null, rackId: null,
  rebalanceTimeoutMs: memberEpoch === 0 ? 30000 : -1,
  subscribedTopicNames: memberEpoch === 0 ? [topic] : null,
  subscribedTopicRegex: null, serverAssignor: null,
  topicPartitions: memberEpoch === 0 ? [] : null,
});

/** Until a throwaway group's member is assigned every partition of `topic` (the group is left and deleted). */
async function waitUntilAssignable(admin, topic, partitions) {
  for (;;) {
    const groupId = `probe-${topic}`;
    const memberId = randomUUID().replace(/-/g, '').slice(0, 22);
    const joined = await admin.send(68, 1, probeHeartbeat(groupId, memberId, 0, topic));
    if (joined.errorCode === 0) await admin.send(68, 1, probeHeartbeat(groupId, memberId, -1, topic));
    await admin.send(42, 2, { groupsNames: [groupId] });
    const assigned = joined.assignment?.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) ?? 0;
    if (assigned === partitions) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** FindCoordinator until the broker has a group coordinator (Kafka creates `__consumer_offsets` on the first call). */
async function waitForCoordinator(admin) {
  for (;;) {
    const res = await admin.send(10, 4, { keyType: 0, coordinatorKeys: ['bench'] });
    if (res.coordinators[0].errorCode === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function formGroup(port, admin, n, partitions) {
  const topic = `kip848-${n}-${randomUUID().slice(0, 8)}`;
  const groupId = `g-${topic}`;
  const created = await admin.send(19, 5, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
  if (created.topics[0].errorCode !== 0) throw new Error(`CreateTopics: ${created.topics[0].errorCode}`);
  await waitUntilAssignable(admin, topic, partitions);
  let stable = false;
  const waiters = new Set();
  const state = {
    members: [],
    heartbeats: 0,
    epochs: new Set(),
    changed: () => check(),
    waitInterval: (ms) => new Promise((resolve) => {
      const entry = { resolve, timer: setTimeout(() => { waiters.delete(entry); resolve(); }, ms) };
      waiters.add(entry);
    }),
  };
  let checking = false;
  // Described whenever a member took an assignment: stable when every member is at the group epoch with its target.
  const check = async () => {
    if (checking || stable || state.members.length < n) return;
    checking = true;
    try {
      const d = await admin.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false });
      const g = d.groups[0];
      stable = g.members.length === n && g.members.every((m) => m.memberEpoch === g.groupEpoch && JSON.stringify(sortedParts(m.assignment)) === JSON.stringify(sortedParts(m.targetAssignment)));
      if (stable) {
        state.groupEpoch = g.groupEpoch;
        for (const w of waiters) { clearTimeout(w.timer); w.resolve(); }
      }
    } finally {
      checking = false;
    }
    if (!stable) setTimeout(check, 5);
  };
  const t0 = performance.now();
  const members = await Promise.all(Array.from({ length: n }, () => runMember(port, groupId, topic, state, () => stable)));
  const ms = performance.now() - t0;
  const perMember = members.map((m) => m.heartbeats).sort((a, b) => a - b);
  return { members: n, ms, heartbeatsPerMember: state.heartbeats / n, maxHeartbeats: perMember.at(-1), groupEpoch: state.groupEpoch, epochsSeen: state.epochs.size };
}

export async function runKip848Bench({ members, partitions, heartbeatIntervalMs, assignmentIntervalMs, externalPort = 0, externalPid = 0, warmupMembers = 100 }, extraArgs = []) {
  const args = [
    '--port', '0', '--in-memory', '--no-admin',
    '--config', `group.consumer.min.heartbeat.interval.ms=${heartbeatIntervalMs}`,
    '--config', `group.consumer.heartbeat.interval.ms=${heartbeatIntervalMs}`,
    '--config', `group.consumer.assignment.interval.ms=${assignmentIntervalMs}`,
    ...extraArgs,
  ];
  const rows = [];
  for (const n of members) {
    const { child, port } = externalPort ? { child: null, port: externalPort } : await startCliServer(args);
    try {
      const admin = await BenchClient.connect(port);
      await waitForCoordinator(admin);
      // One formation first, not measured: the server's code paths are compiled (a JVM's JIT, V8's
      // optimizer) and the group coordinator is loaded, as on a broker that has served groups.
      await formGroup(port, admin, warmupMembers, partitions);
      const pid = child?.pid ?? externalPid;
      const cpu0 = pid ? processCpuMs(pid) : null;
      const row = await formGroup(port, admin, n, partitions);
      row.serverCpuMs = pid ? processCpuMs(pid) - cpu0 : null;
      admin.close();
      rows.push(row);
      console.error(`kip848 ${JSON.stringify(row)}`);
    } finally {
      if (child) await stopChild(child);
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runKip848Bench(kip848BenchOptions());
}
