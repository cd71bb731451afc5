/**
 * A Kafka Streams application (kafka-streams 4.3.1, test/clients/java WordCount) with
 * `group.protocol=streams` (KIP-1071) against the server: the group coordinator creates its
 * repartition and changelog topics, two instances share the tasks (each task owned once), the
 * counts are right, and when one instance stops the other takes its tasks over and counts on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { startWordCount, until } from '../support/word-count.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});


describeJava('Kafka Streams with the streams rebalance protocol', () => {
  it('two instances share the tasks of a word count, and one takes all of them over when the other stops', async () => {
    // Kafka's defaults but the first assignment's 3 s delay, so the test waits for less.
    const server = await startTestServer({ config: { 'num.partitions': 2, 'group.streams.initial.rebalance.delay.ms': 0 } });
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'wc-streams-test');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.createTopics({ topics: [{ topic: 'wc-input', numPartitions: 2 }, { topic: 'wc-output', numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(async () => { await producer.disconnect(); });

    const counts = new Map<string, bigint>();
    const consumer = kafka.consumer({ groupId: 'wc-reader', maxWaitTimeInMs: 100 });
    await consumer.connect();
    cleanups.push(async () => { await consumer.disconnect(); });
    await consumer.subscribe({ topic: 'wc-output', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { counts.set(message.key!.toString(), message.value!.readBigInt64BE(0)); } });
    const countsAre = (expected: Record<string, number>) => Object.entries(expected).every(([w, n]) => counts.get(w) === BigInt(n));
    const shown = () => JSON.stringify(Object.fromEntries(counts), (_k, v) => (typeof v === 'bigint' ? Number(v) : v));

    const stateA = mkdtempSync(join(tmpdir(), 'kmc-streams-a-'));
    const stateB = mkdtempSync(join(tmpdir(), 'kmc-streams-b-'));
    cleanups.push(() => { rmSync(stateA, { recursive: true, force: true }); rmSync(stateB, { recursive: true, force: true }); });
    const protocol = ['group.protocol=streams'];
    const a = startWordCount(cleanups, server.bootstrap, { input: 'wc-input', output: 'wc-output' }, stateA, protocol);
    const b = startWordCount(cleanups, server.bootstrap, { input: 'wc-input', output: 'wc-output' }, stateB, protocol);
    const both = () => `${a.output()}\n---\n${b.output()}`;
    await until(() => a.events.some((e) => e['state'] === 'RUNNING') && b.events.some((e) => e['state'] === 'RUNNING'), 'both instances to run', both);

    // The coordinator made the internal topics, with the partitions of the input.
    const internal = (await admin.listTopics()).filter((t) => t.startsWith('kmc-wordcount-')).sort();
    expect(internal).toEqual(['kmc-wordcount-counts-changelog', 'kmc-wordcount-counts-repartition']);
    expect(internal.map((t) => server.broker.topics.get(t)!.partitionCount)).toEqual([2, 2]);

    // Once stable, each of the four tasks (two subtopologies x two partitions) has one owner, and both members have some.
    const group = () => server.broker.streams.committedGroup('kmc-wordcount');
    await until(() => group()?.state === 'Stable' && group()!.members.size === 2, 'a stable group of two', both);
    const owned = [...group()!.members.values()].map((m) => [...m.assigned.active].flatMap(([s, ps]) => [...ps.keys()].map((p) => `${s}_${p}`)));
    expect(owned.flat().sort()).toEqual(['0_0', '0_1', '1_0', '1_1']);
    expect(owned.every((tasks) => tasks.length > 0)).toBe(true);

    await producer.send({ topic: 'wc-input', messages: [{ key: 'l1', value: 'Hello world' }, { key: 'l2', value: 'hello Kafka Streams' }, { key: 'l3', value: 'the world' }] });
    await until(() => countsAre({ hello: 2, world: 2, kafka: 1, streams: 1, the: 1 }), 'the first counts', () => `${shown()}\n${both()}`);

    // A leaves the group on close; B is given every task and counts on from the changelog.
    await a.stop();
    await until(() => group()?.state === 'Stable' && group()!.members.size === 1 && [...group()!.members.values()][0]!.assigned.active.size === 2, 'B to own every task', both);
    await producer.send({ topic: 'wc-input', messages: [{ key: 'l4', value: 'hello again world' }] });
    await until(() => countsAre({ hello: 3, again: 1, world: 3 }), 'the counts after A left', () => `${shown()}\n${b.output()}`);
    await b.stop();
    expect(group()?.state).toBe('Empty');
  }, 300_000);
});
