// What the group-formation benchmarks (kip848-formation.mjs, classic-formation.mjs) share: one
// group's formation (member waits a stable group releases at once, a time limit), and the loop that forms a group of each size on a
// fresh instance of each server after unmeasured warm-up groups.
import { randomUUID } from 'node:crypto';
import { BenchClient, envInt, envList, processCpuMs, stopChild } from './lib.mjs';
import { startEcho } from './commit-throughput.mjs';
import { PEERS, createTopic, startServerWithTopics } from './peers.mjs';

/**
 * The options both formation benchmarks take from `<prefix>_MEMBERS` (`100,1000`; a list),
 * `_PARTITIONS` (200: the topic of a group has this many partitions, or as many as it has members
 * when that is more, so every member gets one), `_HEARTBEAT_MS` (100), `_WARMUPS` (1) groups of
 * `_WARMUP_MEMBERS` (100) members,
 * `_TIMEOUT_MS`, `_ROUNDS` (1: each member count formed this many times on each server, the
 * servers in turn), `_PORT` and `_PID` (measure a broker already listening on that port, its
 * process for the CPU time, instead of starting servers), BENCH_SERVERS (ours and the peers) and
 * BENCH_BASE_CLI (another build's dist/cli.js, run as server `base` after ours: an A/B run).
 */
export function formationOptions(prefix, defaultTimeoutMs) {
  return {
    members: (process.env[`${prefix}_MEMBERS`] ?? '100,1000').split(',').map(Number),
    partitions: envInt(`${prefix}_PARTITIONS`, 200),
    heartbeatIntervalMs: envInt(`${prefix}_HEARTBEAT_MS`, 100),
    warmups: envInt(`${prefix}_WARMUPS`, 1),
    warmupMembers: envInt(`${prefix}_WARMUP_MEMBERS`, 100),
    timeoutMs: envInt(`${prefix}_TIMEOUT_MS`, defaultTimeoutMs),
    rounds: envInt(`${prefix}_ROUNDS`, 1),
    externalPort: envInt(`${prefix}_PORT`, 0),
    externalPid: envInt(`${prefix}_PID`, 0),
    servers: withBase(envList('BENCH_SERVERS', ['ours', ...PEERS]).filter((s) => s === 'ours' || s === 'echo' || PEERS.includes(s))),
  };
}

/** `servers` with `base` after `ours` when BENCH_BASE_CLI names another build's dist/cli.js (an A/B run). */
function withBase(servers) {
  return process.env.BENCH_BASE_CLI && servers.includes('ours') ? servers.flatMap((s) => (s === 'ours' ? ['ours', 'base'] : [s])) : servers;
}

/** A broker someone else started (`externalPort`), as formGroups uses a started server; never stopped. */
async function externalServer(port, pid, topics) {
  for (const t of topics) await createTopic(port, t.name, t.partitions);
  return { port, child: { pid, stderrTail: () => '' }, external: true };
}

/**
 * One group being formed by `n` members: they wait between heartbeats on `wait(ms)` and stop when
 * `done()`; `markStable()` ends the formation (releasing every wait at once). `run(startMember)`
 * starts the n member loops and resolves with { members (what they resolved), ms }, or throws when
 * the group was not stable within `timeoutMs` (`describe()` says how far it got); members
 * `track(client)` their connections, which are closed then, so none stays blocked on an answer
 * the server holds back (a JoinGroup waits for the rebalance). `members` is for the member loops
 * to list themselves in; `leave` tells them to leave the group once it is stable (warm-up groups).
 */
export function groupFormation(n, timeoutMs, leave = false) {
  const waiters = new Set();
  const clients = new Set();
  let stable = false;
  let timedOut = false;
  const release = () => {
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.resolve();
    }
    waiters.clear();
  };
  return {
    members: [],
    leave,
    wait: (ms) => new Promise((resolve) => {
      const entry = { resolve, timer: setTimeout(() => { waiters.delete(entry); resolve(); }, ms) };
      waiters.add(entry);
    }),
    done: () => stable || timedOut,
    track: (client) => clients.add(client),
    isStable: () => stable,
    markStable: () => {
      stable = true;
      release();
    },
    async run(startMember, describe) {
      const deadline = setTimeout(() => {
        timedOut = true;
        release();
        for (const c of clients) c.close();
      }, timeoutMs);
      const t0 = performance.now();
      const members = await Promise.all(Array.from({ length: n }, startMember))
        .catch((err) => {
          if (!timedOut) throw err;
        })
        .finally(() => clearTimeout(deadline));
      const ms = performance.now() - t0;
      if (!stable) throw new Error(`not stable after ${timeoutMs} ms (${describe()})`);
      return { members, ms };
    },
  };
}

/** The partitions of the topic a group of `members` forms on: `partitions`, or one per member when they are more. */
export const partitionsFor = (partitions, members) => Math.max(partitions, members);

/**
 * For each member count, each server in turn: a fresh server (broker `configs`, one topic of
 * `partitionsFor(partitions, n)` per group), `warmups` groups of `warmupMembers` (0: as many as measured) formed
 * and left unmeasured, then one measured
 * `form(port, topic, n, { server, leave: false, partitions })` with the server's CPU time. Rows: the fields `form`
 * returns plus { server, version, serverCpuMs }, or { server, missing } once for a server that
 * cannot start, or { server, members, failed } for a group that did not form, or
 * { server, members, skipped } for a peer not run at a member count because at the previous one it
 * failed, took more than {@link SKIP_SLOWER_THAN} times ours or sent more than
 * {@link SKIP_CHATTIER_THAN} times ours' requests per member (librdkafka's mock needed 5-12x
 * ours' time and 5-8x its heartbeats at 100 KIP-848 members, and at 1,000 did not settle within
 * 120 s or lost its connections: up to two minutes of a run for a row that says only that).
 */
export async function formGroups(label, options, form) {
  const { members, partitions, warmups = 0, warmupMembers = 0, configs = {}, extraArgs = [], externalPort = 0, externalPid = 0, rounds = 1 } = options;
  const servers = externalPort ? ['external'] : options.servers;
  const rows = [];
  const missing = new Set();
  /** Each server's row at the previous member count. */
  let previous = new Map();
  for (const n of members) {
    const current = new Map();
    for (const server of Array.from({ length: rounds }, () => servers).flat()) {
      if (missing.has(server)) continue;
      const skipped = skipReason(server, previous);
      if (skipped) {
        rows.push({ server, members: n, skipped });
        current.set(server, { members: n, skipped });
        console.error(`${label} ${server} ${n} members skipped: ${skipped}`);
        continue;
      }
      const topic = `${label}-${n}-${randomUUID().slice(0, 8)}`;
      const warmupTopics = Array.from({ length: warmups }, (_, i) => `${topic}-warmup-${i}`);
      const topicPartitions = partitionsFor(partitions, n);
      const topics = [...warmupTopics, topic].map((name) => ({ name, partitions: topicPartitions }));
      if (server === 'echo') {
        rows.push(await echoFloor(n, warmups, warmupMembers, options));
        continue;
      }
      const started = externalPort ? await externalServer(externalPort, externalPid, topics) : await startServerWithTopics(server, { configs, topics, extraArgs });
      if (started.missing) {
        missing.add(server);
        rows.push({ server, missing: started.missing });
        console.error(`${label} ${server}: missing: ${started.missing}`);
        continue;
      }
      try {
        // Warm-up groups first (other topics and group ids), so a JIT (Kafka's, ours) is measured warm.
        for (const w of warmupTopics) await form(started.port, w, warmupMembers || n, { server, leave: true, partitions: topicPartitions });
        const pid = started.child.pid;
        const cpu0 = pid ? processCpuMs(pid) : null;
        const clientCpu0 = process.cpuUsage();
        const row = { server, version: started.version, partitions: topicPartitions, ...(await form(started.port, topic, n, { server, leave: false, partitions: topicPartitions })) };
        row.serverCpuMs = pid ? processCpuMs(pid) - cpu0 : null;
        row.clientCpuMs = clientCpuMsSince(clientCpu0);
        rows.push(row);
        current.set(server, row);
        console.error(`${label} ${JSON.stringify(row)}`);
      } catch (err) {
        const why = `${err.message}${started.child.stderrTail?.() ? `; server stderr: ${started.child.stderrTail()}` : ''}`;
        rows.push({ server, members: n, failed: why });
        current.set(server, { members: n, failed: why });
        console.error(`${label} ${server} ${n} members failed: ${why}`);
      } finally {
        if (!started.external) await stopChild(started.child);
        started.cleanup?.();
      }
    }
    previous = current;
  }
  return rows;
}

/**
 * This process's CPU (the members' client) in ms since `start` (a `process.cpuUsage()`): the server and
 * its client share the machine's cores, so a server that makes its client work harder is slower too.
 */
function clientCpuMsSince(start) {
  const { user, system } = process.cpuUsage(start);
  return Math.round((user + system) / 1000);
}

/** A peer slower than this many times ours at one member count is not run at the next. */
export const SKIP_SLOWER_THAN = 10;
/** Nor one that sent more than this many times ours' requests per member. */
export const SKIP_CHATTIER_THAN = 5;

/** Requests (heartbeats in KIP-848 groups) per member of a row. */
const perMember = (row) => row.heartbeatsPerMember ?? row.requestsPerMember;

/** Why `server` is not run at this member count, from the rows of the previous one (null: run it). */
function skipReason(server, previous) {
  const before = previous.get(server);
  if (server === 'ours' || server === 'base' || before === undefined) return null;
  if (before.skipped) return before.skipped;
  if (before.failed) return `not run: did not form with ${before.members} members`;
  const ours = previous.get('ours');
  if (!ours || ours.failed) return null;
  if (before.ms > SKIP_SLOWER_THAN * ours.ms) {
    return `not run: took ${Math.round(before.ms / ours.ms)}x ours' time with ${before.members} members`;
  }
  if (perMember(before) > SKIP_CHATTIER_THAN * perMember(ours)) {
    return `not run: sent ${Math.round(perMember(before) / perMember(ours))}x ours' requests per member with ${before.members} members`;
  }
  return null;
}

/**
 * What a bare Node.js server needs for the traffic of the best formation any server had (kfake's: a
 * JoinGroup answered MEMBER_ID_REQUIRED, a JoinGroup, a SyncGroup per member, the group formed in
 * generation 1 or 2): `n` connections opened at once from this process, each then sending
 * `options.floorRoundTrips` (3) requests one after another, answered by bench/echo-server.mjs with a
 * canned frame, until every member has its last answer. The floor under any server in Node, and for
 * the client this process is; after the same warm-up rounds as the servers get.
 */
async function echoFloor(n, warmups, warmupMembers, options) {
  const roundTrips = options.floorRoundTrips ?? 3;
  const echo = await startEcho();
  try {
    const round = async (members) => {
      const t0 = performance.now();
      const clients = await Promise.all(Array.from({ length: members }, async () => {
        const client = await BenchClient.connect(echo.port);
        for (let i = 0; i < roundTrips; i++) await client.send(18, 0, {}, () => null);
        return client;
      }));
      const ms = performance.now() - t0;
      for (const c of clients) c.close();
      return ms;
    };
    for (let w = 0; w < warmups; w++) await round(warmupMembers || n);
    const cpu0 = processCpuMs(echo.child.pid);
    const clientCpu0 = process.cpuUsage();
    const ms = await round(n);
    const clientCpuMs = clientCpuMsSince(clientCpu0);
    const row = { server: 'echo', members: n, ms, requestsPerMember: roundTrips, maxRequests: roundTrips, generation: null, serverCpuMs: processCpuMs(echo.child.pid) - cpu0, clientCpuMs };
    console.error(`formation floor ${JSON.stringify(row)}`);
    return row;
  } finally {
    await stopChild(echo.child);
    echo.cleanup?.();
  }
}
