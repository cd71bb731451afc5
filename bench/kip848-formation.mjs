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
// BENCH_KIP848_MEMBERS (100), BENCH_KIP848_PARTITIONS (200), BENCH_KIP848_HEARTBEAT_MS (100),
// BENCH_KIP848_ASSIGNMENT_INTERVAL_MS (0), BENCH_KIP848_TIMEOUT_MS (120000: a group not stable by
// then is reported as failed), BENCH_KIP848_WARMUPS (1: groups of the same size formed, unmeasured,
// on the same server just before the measured one, so JIT compilers are warm), BENCH_SERVERS.
// Figures for reading, never asserted by tests.
import { randomUUID } from 'node:crypto';
import { BenchClient, startCliServer, stopChild, envInt, envList, processCpuMs } from './lib.mjs';
import { PEERS, createTopic, startPeer } from './peers.mjs';

export function kip848BenchOptions() {
  return {
    members: (process.env.BENCH_KIP848_MEMBERS ?? '100').split(',').map(Number),
    partitions: envInt('BENCH_KIP848_PARTITIONS', 200),
    heartbeatIntervalMs: envInt('BENCH_KIP848_HEARTBEAT_MS', 100),
    assignmentIntervalMs: envInt('BENCH_KIP848_ASSIGNMENT_INTERVAL_MS', 0),
    timeoutMs: envInt('BENCH_KIP848_TIMEOUT_MS', 120_000),
    warmups: envInt('BENCH_KIP848_WARMUPS', 1),
    servers: envList('BENCH_SERVERS', ['ours', ...PEERS]).filter((s) => s === 'ours' || PEERS.includes(s)),
  };
}

const ownedCount = (owned) => owned.reduce((n, t) => n + t.partitions.length, 0);

/** One member's loop; resolves when `done()` says the group is stable. */
async function runMember(port, groupId, topic, state, done, joinRegex) {
  const client = await BenchClient.connect(port);
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
  let stable = false;
  let timedOut = false;
  const waiters = new Set();
  const state = {
    leave,
    members: [],
    heartbeats: 0,
    epochs: new Set(),
    changed: () => check(),
    waitInterval: (ms) => new Promise((resolve) => {
      const entry = { resolve, timer: setTimeout(() => { waiters.delete(entry); resolve(); }, ms) };
      waiters.add(entry);
    }),
  };
  // After every answer: stable when all n members sit at the highest epoch seen and own every partition once.
  let maxEpoch = 0;
  const check = () => {
    for (const m of state.members) maxEpoch = Math.max(maxEpoch, m.epoch);
    if (stable || state.members.length < n || !state.members.every((m) => m.epoch === maxEpoch)) return;
    if (state.members.reduce((sum, m) => sum + ownedCount(m.owned), 0) !== partitions) return;
    const union = new Set(state.members.flatMap((m) => m.owned.flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`))));
    if (union.size !== partitions) return;
    stable = true;
    state.groupEpoch = maxEpoch;
    for (const w of waiters) { clearTimeout(w.timer); w.resolve(); }
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    for (const w of waiters) { clearTimeout(w.timer); w.resolve(); }
  }, timeoutMs);
  const t0 = performance.now();
  const members = await Promise.all(Array.from({ length: n }, () => runMember(port, groupId, topic, state, () => stable || timedOut, joinRegex))).finally(() => clearTimeout(deadline));
  const ms = performance.now() - t0;
  if (!stable) throw new Error(`not stable after ${timeoutMs} ms (${state.heartbeats} heartbeats)`);
  const perMember = members.map((m) => m.heartbeats).sort((a, b) => a - b);
  return { members: n, ms, heartbeatsPerMember: state.heartbeats / n, maxHeartbeats: perMember.at(-1), groupEpoch: state.groupEpoch, epochsSeen: state.epochs.size };
}

/** Starts `server` with the bench's group configs and `topic`: { child, port, cleanup?, version? } or { missing }. */
async function startFor(server, topics, partitions, { heartbeatIntervalMs, assignmentIntervalMs }, extraArgs) {
  if (server === 'ours') {
    const args = [
      '--port', '0', '--in-memory', '--no-admin',
      '--config', `group.consumer.min.heartbeat.interval.ms=${heartbeatIntervalMs}`,
      '--config', `group.consumer.heartbeat.interval.ms=${heartbeatIntervalMs}`,
      '--config', `group.consumer.assignment.interval.ms=${assignmentIntervalMs}`,
      ...extraArgs,
    ];
    const started = await startCliServer(args);
    for (const topic of topics) await createTopic(started.port, topic, partitions);
    return started;
  }
  const configs = { 'group.consumer.heartbeat.interval.ms': heartbeatIntervalMs };
  if (server === 'kafka') {
    configs['group.consumer.min.heartbeat.interval.ms'] = heartbeatIntervalMs;
    configs['group.consumer.assignment.interval.ms'] = assignmentIntervalMs;
  }
  return startPeer(server, { configs, topics: topics.map((name) => ({ name, partitions })) });
}

/** Every member count against every server in turn; rows { server, members, ... } or { server, missing }. */
export async function runKip848Bench(options, extraArgs = []) {
  const { members, partitions, servers = ['ours'] } = options;
  const rows = [];
  const missing = new Map();
  for (const n of members) {
    for (const server of servers) {
      if (missing.has(server)) continue;
      const topic = `kip848-${n}-${randomUUID().slice(0, 8)}`;
      const warmups = Array.from({ length: options.warmups ?? 0 }, (_, i) => `${topic}-warmup-${i}`);
      const started = await startFor(server, [...warmups, topic], partitions, options, extraArgs);
      if (started.missing) {
        missing.set(server, started.missing);
        rows.push({ server, missing: started.missing });
        console.error(`kip848 ${server}: missing: ${started.missing}`);
        continue;
      }
      try {
        // librdkafka's mock aborts (an assertion) on a heartbeat whose topic names come without a
        // regex; its members join with an empty one. The others get none, as the Java consumer sends.
        const joinRegex = server === 'librdkafka-mock' ? '' : null;
        // Warm-up groups first (other topics and group ids), so a JIT (Kafka's, ours) is measured warm.
        for (const w of warmups) await formGroup(started.port, w, n, partitions, { joinRegex, timeoutMs: options.timeoutMs, leave: true });
        const cpu0 = processCpuMs(started.child.pid);
        const row = { server, version: started.version, ...(await formGroup(started.port, topic, n, partitions, { joinRegex, timeoutMs: options.timeoutMs })) };
        row.serverCpuMs = processCpuMs(started.child.pid) - cpu0;
        rows.push(row);
        console.error(`kip848 ${JSON.stringify(row)}`);
      } catch (err) {
        const why = `${err.message}${started.child.stderrTail?.() ? `; server stderr: ${started.child.stderrTail()}` : ''}`;
        rows.push({ server, members: n, failed: why });
        console.error(`kip848 ${server} ${n} members failed: ${why}`);
      } finally {
        await stopChild(started.child);
        started.cleanup?.();
      }
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runKip848Bench(kip848BenchOptions());
}
