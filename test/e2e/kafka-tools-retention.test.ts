/**
 * The retention worked example of issue 15 with Kafka 4.3.1's own tools on the server's manual
 * clock: `kafka-configs --alter --add-config retention.ms=...` on a topic, the clock advanced past
 * it, and the retention pass deletes the old segments: `kafka-get-offsets --time earliest` answers
 * the new log start offset and the segment files are gone. Needs the jars of scripts/fetch-kafka.sh.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { runTool } from '../kafka-tools/harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(clients().kafkaLibs === null)('retention.ms set with kafka-configs', () => {
  it('deletes the segments older than it at the next retention pass; kafka-get-offsets shows the new earliest offset', async () => {
    const server = await startTestServer({ clock: 'manual', config: { 'log.segment.bytes': 1, 'log.retention.check.interval.ms': 60_000 } });
    cleanups.push(() => server.stop());
    const bootstrap = ['--bootstrap-server', server.bootstrap];
    expect((await runTool('kafka-topics', [...bootstrap, '--create', '--topic', 'events', '--partitions', '1'])).code).toBe(0);
    const producer = kafkaClient(server.bootstrap, 'ret-tools').producer();
    await producer.connect();
    cleanups.push(async () => { await producer.disconnect(); });
    const send = (value: string) => producer.send({ topic: 'events', messages: [{ value, timestamp: String(server.clock.now()) }] });
    for (const v of ['old-1', 'old-2', 'old-3']) await send(v);
    server.clock.advance(3_600_000); // an hour later
    for (const v of ['new-1', 'new-2']) await send(v);

    const alter = await runTool('kafka-configs', [...bootstrap, '--alter', '--entity-type', 'topics', '--entity-name', 'events', '--add-config', 'retention.ms=1800000']);
    expect(alter.stdout.trim()).toBe('Completed updating config for topic events.');
    const earliest = async () => (await runTool('kafka-get-offsets', [...bootstrap, '--topic', 'events', '--time', 'earliest'])).stdout.trim();
    expect(await earliest()).toBe('events:0:0');

    server.clock.advance(60_000); // the next retention pass: the old records are an hour old, the new ones a minute
    const partition = server.broker.topics.get('events')!.partition(0)!;
    await waitFor(() => partition.logStartOffset === 3n, 10_000, 'the log start offset to move');
    await partition.log.whenIdle();
    expect(await earliest()).toBe('events:0:3');
    expect(readdirSync(join(server.dataDir, 'events-0')).filter((f) => f.endsWith('.log')).sort()).toEqual(['00000000000000000003.log', '00000000000000000004.log']);
    const described = await runTool('kafka-configs', [...bootstrap, '--describe', '--entity-type', 'topics', '--entity-name', 'events']);
    expect(described.stdout).toContain('retention.ms=1800000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1800000}');
  }, 180_000);
});
