/**
 * kafka-consumer-groups (ConsumerGroupCommand) against our server and Kafka 4.3.1: list; describe
 * offsets, members (--verbose), state of an empty classic group, a live classic group and a live
 * KIP-848 group; reset-offsets (to earliest, latest, an offset, a datetime, shift-by; dry run and
 * execute); delete-offsets; delete. Records are written with kafka-console-producer (keyed, so
 * their partitions are the same on both brokers); the live members are raw-protocol members.
 */
import { describe } from 'vitest';
import { toolCase, useToolTargets, type Target } from './harness.js';
import { assignment, commit, join, sync } from '../conformance/groups.js';

useToolTargets();

/** A topic of 3 partitions with 10 keyed records written by kafka-console-producer. */
async function topicWithRecords(t: Target, base: string): Promise<string> {
  const topic = t.topic(base);
  await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', '3']);
  const lines = Array.from({ length: 10 }, (_, i) => `key-${i}:value-${i}`).join('\n') + '\n';
  const produced = await t.run('kafka-console-producer', ['--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:'], { stdin: lines });
  if (produced.code !== 0) throw new Error(`console producer: ${produced.stderr}`);
  return topic;
}

/** A classic group with one member that holds every partition (joined with the raw protocol, session 60 s). */
async function liveClassicGroup(t: Target, groupId: string, topic: string): Promise<void> {
  const c = await t.raw();
  const opts = { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 60_000 };
  const first = await c.send(11, 9, join(groupId, '', [topic], opts), 'tools-member');
  const j = await c.send(11, 9, join(groupId, first.memberId, [topic], opts), 'tools-member');
  await c.send(14, 5, sync(groupId, j.generationId, first.memberId, [{ memberId: first.memberId, assignment: assignment({ [topic]: [0, 1, 2] }) }]), 'tools-member');
  await c.send(8, 8, commit(groupId, j.generationId, first.memberId, topic, [[0, 1n], [1, 2n], [2, 0n]]), 'tools-member');
  c.close();
}

describe('kafka-consumer-groups', () => {
  toolCase('list, describe (offsets, members, state) of an empty and a live classic group', async (t) => {
    const topic = await topicWithRecords(t, 'cg');
    const empty = t.topic('cg-empty');
    const live = t.topic('cg-live');
    const c = await t.raw();
    await c.send(8, 8, commit(empty, -1, '', topic, [[0, 1n], [1, 3n]]));
    c.close();
    await liveClassicGroup(t, live, topic);
    const list = await t.run('kafka-consumer-groups', ['--list']);
    t.record('list (this run)', list.stdout.split('\n').filter((l) => l.endsWith(t.suffix)).sort().join('\n'));
    await t.call('describe the empty group', 'kafka-consumer-groups', ['--describe', '--group', empty]);
    await t.call('describe the empty group --state', 'kafka-consumer-groups', ['--describe', '--group', empty, '--state']);
    await t.call('describe the live group', 'kafka-consumer-groups', ['--describe', '--group', live]);
    await t.call('describe the live group --members --verbose', 'kafka-consumer-groups', ['--describe', '--group', live, '--members', '--verbose']);
    await t.call('describe the live group --state --verbose', 'kafka-consumer-groups', ['--describe', '--group', live, '--state', '--verbose']);
    await t.call('describe an unknown group', 'kafka-consumer-groups', ['--describe', '--group', t.topic('cg-unknown')]);
  });

  toolCase('reset-offsets (earliest, latest, to-offset, datetime, shift-by), delete-offsets, delete', async (t) => {
    const topic = await topicWithRecords(t, 'rs');
    const group = t.topic('rs-group');
    const c = await t.raw();
    await c.send(8, 8, commit(group, -1, '', topic, [[0, 1n], [1, 1n], [2, 1n]]));
    c.close();
    const reset = (label: string, ...how: string[]) => t.call(label, 'kafka-consumer-groups', ['--reset-offsets', '--group', group, '--topic', topic, ...how]);
    await reset('to-earliest (dry run)', '--to-earliest');
    await reset('to-latest', '--to-latest', '--execute');
    await reset('to-offset 2', '--to-offset', '2', '--execute');
    await reset('shift-by -1', '--shift-by', '-1', '--execute');
    await reset('to-datetime in the past', '--to-datetime', '2020-01-01T00:00:00.000', '--execute');
    await t.call('describe after resets', 'kafka-consumer-groups', ['--describe', '--group', group]);
    await t.call('delete-offsets of partition 2', 'kafka-consumer-groups', ['--delete-offsets', '--group', group, '--topic', `${topic}:2`]);
    await t.call('delete', 'kafka-consumer-groups', ['--delete', '--group', group]);
    await t.call('describe after delete', 'kafka-consumer-groups', ['--describe', '--group', group]);
  });

  toolCase('describe a KIP-848 consumer group (members, state, --verbose)', async (t) => {
    const topic = await topicWithRecords(t, 'k848');
    const group = t.topic('k848-group');
    const c = await t.raw();
    const h = await c.send(68, 1, {
      groupId: group, memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 60_000,
      subscribedTopicNames: [topic], subscribedTopicRegex: null, serverAssignor: 'range', topicPartitions: [],
    }, 'tools-848');
    const acked = await c.send(68, 1, {
      groupId: group, memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: h.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: 60_000,
      subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null,
      topicPartitions: h.assignment?.topicPartitions.map((tp) => ({ topicId: tp.topicId, partitions: tp.partitions })) ?? [],
    }, 'tools-848');
    // The member heartbeats at its interval while the tools run (a JVM can take longer than the
    // 6 s session timeout to start on a busy machine), so both brokers describe it as live.
    let beating = true;
    const heartbeats = (async () => {
      while (beating) {
        await new Promise((resolve) => setTimeout(resolve, acked.heartbeatIntervalMs));
        if (!beating) break;
        await c.send(68, 1, {
          groupId: group, memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: acked.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: 60_000,
          subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
        }, 'tools-848');
      }
    })();
    try {
      await t.call('describe --members --verbose', 'kafka-consumer-groups', ['--describe', '--group', group, '--members', '--verbose']);
      await t.call('describe --state --verbose', 'kafka-consumer-groups', ['--describe', '--group', group, '--state', '--verbose']);
    } finally {
      beating = false;
      await heartbeats;
      c.close();
    }
  });
});

describe('the worked example: growing a topic under a running group', () => {
  toolCase('orders 4 -> 8 partitions while a 2-member group of console consumers runs; records written to partitions 4-7 are consumed', async (t) => {
    const topic = t.topic('orders');
    const group = t.topic('orders-group');
    await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', '4']);
    const consumerArgs = ['--topic', topic, '--group', group, '--consumer-property', 'metadata.max.age.ms=1000', '--consumer-property', 'auto.commit.interval.ms=200', '--consumer-property', 'auto.offset.reset=earliest'];
    t.start('kafka-console-consumer', consumerArgs);
    t.start('kafka-console-consumer', consumerArgs);
    const describe = ['--describe', '--group', group, '--members'];
    const partitionsHeld = (out: string) => out.split('\n').filter((l) => l.startsWith(group)).map((l) => Number(l.trim().split(/\s+/)[4]));
    await t.until('kafka-consumer-groups', describe, (out) => partitionsHeld(out).join() === '2,2');
    await t.call('alter to 8 partitions', 'kafka-topics', ['--alter', '--topic', topic, '--partitions', '8']);
    await t.until('kafka-consumer-groups', describe, (out) => partitionsHeld(out).join() === '4,4');
    // One record for each new partition: keys whose murmur2 hash lands on partitions 4-7 of 8.
    const keys = keysForPartitions([4, 5, 6, 7], 8);
    await t.run('kafka-console-producer', ['--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:'], { stdin: keys.map((k, i) => `${k}:new-${4 + i}`).join('\n') + '\n' });
    const offsets = ['--describe', '--group', group];
    const out = await t.until('kafka-consumer-groups', offsets, (o) => [4, 5, 6, 7].every((p) => new RegExp(`\\s${p}\\s+1\\s+1\\s+0\\s`).test(o)));
    t.record('partitions 4-7 committed by the group', out.split('\n').filter((l) => / [4-7] /.test(l)).map((l) => l.trim().split(/\s+/).slice(1, 6).join(' ')).sort().join('\n'));
  });
});

/** Keys (`key-N`) that Kafka's default partitioner (murmur2) puts on each of `partitions` out of `count`. */
function keysForPartitions(partitions: number[], count: number): string[] {
  return partitions.map((p) => {
    for (let n = 0; ; n++) {
      const key = `key-${n}`;
      if ((murmur2(Buffer.from(key)) & 0x7fffffff) % count === p) return key;
    }
  });
}

/** Kafka's `Utils.murmur2` (the default partitioner's hash of the key bytes). */
function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  const seed = 0x9747b28c;
  let h = seed ^ data.length;
  const length4 = Math.floor(data.length / 4);
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4]! & 0xff) + ((data[i4 + 1]! & 0xff) << 8) + ((data[i4 + 2]! & 0xff) << 16) + ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = data.length % 4;
  const at = length4 * 4;
  if (rest === 3) h ^= (data[at + 2]! & 0xff) << 16;
  if (rest >= 2) h ^= (data[at + 1]! & 0xff) << 8;
  if (rest >= 1) {
    h ^= data[at]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}
