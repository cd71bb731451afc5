/**
 * A Kafka Streams application (kafka-streams 4.3.1, test/clients/java WordCount: at-least-once, a
 * repartition topic and a changelogged in-memory store) against the server (issue 15): it creates its
 * internal topics with Streams' configs, counts words right, is stopped and started again with an
 * empty state directory and restores its counts from the changelog, and purges its repartition topic
 * with DeleteRecords.
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

describeJava('Kafka Streams', () => {
  it('word count with a repartition and a changelog: right counts, restored after a restart from the changelog, repartition records purged', async () => {
    const server = await startTestServer({ config: { 'num.partitions': 2 } });
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'wc-test');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.createTopics({ topics: [{ topic: 'wc-input', numPartitions: 2 }, { topic: 'wc-output', numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(async () => { await producer.disconnect(); });

    // The latest count per word on the output topic (values are Serdes.Long: 8 bytes, big-endian).
    const counts = new Map<string, bigint>();
    const consumer = kafka.consumer({ groupId: 'wc-reader', maxWaitTimeInMs: 100 });
    await consumer.connect();
    cleanups.push(async () => { await consumer.disconnect(); });
    await consumer.subscribe({ topic: 'wc-output', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { counts.set(message.key!.toString(), message.value!.readBigInt64BE(0)); } });
    const countsAre = (expected: Record<string, number>) => Object.entries(expected).every(([w, n]) => counts.get(w) === BigInt(n));

    const stateA = mkdtempSync(join(tmpdir(), 'kmc-streams-a-'));
    const stateB = mkdtempSync(join(tmpdir(), 'kmc-streams-b-'));
    cleanups.push(() => { rmSync(stateA, { recursive: true, force: true }); rmSync(stateB, { recursive: true, force: true }); });

    const first = startWordCount(cleanups, server.bootstrap, { input: 'wc-input', output: 'wc-output' }, stateA);
    await until(() => first.events.some((e) => e['state'] === 'RUNNING'), 'the first instance to run', first.output);
    await producer.send({ topic: 'wc-input', messages: [{ key: 'l1', value: 'Hello world' }, { key: 'l2', value: 'hello Kafka Streams' }, { key: 'l3', value: 'the world' }] });
    const firstCounts = { hello: 2, world: 2, kafka: 1, streams: 1, the: 1 };
    await until(() => countsAre(firstCounts), 'the first counts', () => `${JSON.stringify(Object.fromEntries(counts), (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}\n${first.output()}`);
    await first.stop();
    expect(first.events.some((e) => e['event'] === 'closed'), first.output()).toBe(true);

    // The internal topics Streams created, with the configs it asked for.
    const internal = (await admin.listTopics()).filter((t) => t.startsWith('kmc-wordcount-')).sort();
    expect(internal).toEqual(['kmc-wordcount-counts-changelog', 'kmc-wordcount-counts-repartition']);
    const described = await admin.describeConfigs({ includeSynonyms: false, resources: internal.map((name) => ({ type: 2, name, configNames: ['cleanup.policy', 'retention.ms'] })) });
    const configs = Object.fromEntries(described.resources.map((r) => [r.resourceName, Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]))]));
    expect(configs).toEqual({
      'kmc-wordcount-counts-changelog': { 'cleanup.policy': 'compact', 'retention.ms': '604800000' },
      'kmc-wordcount-counts-repartition': { 'cleanup.policy': 'delete', 'retention.ms': '-1' },
    });

    // A second instance with an empty state directory restores the counts from the changelog.
    const second = startWordCount(cleanups, server.bootstrap, { input: 'wc-input', output: 'wc-output' }, stateB);
    await until(() => second.events.some((e) => e['state'] === 'RUNNING'), 'the second instance to run', second.output);
    await producer.send({ topic: 'wc-input', messages: [{ key: 'l4', value: 'hello again world' }] });
    await until(() => countsAre({ hello: 3, again: 1, world: 3 }), 'the counts after the restart', () => `${JSON.stringify(Object.fromEntries(counts), (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}\n${second.output()}`);

    // Streams purged what it had consumed from its repartition topic (DeleteRecords).
    const repartition = server.broker.topics.get('kmc-wordcount-counts-repartition')!;
    await until(() => repartition.partitions.some((p) => p.logStartOffset > 0n), 'the repartition topic to be purged', second.output);
    expect(server.faults.requests({ api: 'DeleteRecords' }).some((r) => r.error === null)).toBe(true);
    await second.stop();
  }, 300_000);
});
