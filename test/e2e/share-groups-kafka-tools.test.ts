/**
 * Kafka 4.3.1's `kafka-console-share-consumer` (`ConsoleShareConsumer`) and `kafka-share-groups`
 * (`ShareGroupCommand`, a Java `Admin`: describeShareGroups, listShareGroupOffsets,
 * alterShareGroupOffsets, deleteShareGroupOffsets, deleteShareGroups) against the server: a console
 * share consumer reads 20 records, `--describe` shows the share coordinator's start offset,
 * `--reset-offsets --to-earliest --execute` makes the next consumer read them all again,
 * `--delete-offsets` and `--delete` clean up. The whole comparison with Kafka's own output is in
 * test/kafka-tools/share-groups.tools.test.ts. Needs Kafka's jars (skipped without java and mvn).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { RawClient } from '../support/raw-client.js';

const LIBS = clients().kafkaLibs;
const run = promisify(execFile);

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs a tool class (asynchronously: the server shares this event loop); exit code and output lines, columns joined by one space. */
async function tool(main: string, bootstrap: string, args: string[]): Promise<{ code: number; lines: string[] }> {
  const result = await run('java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', `${LIBS!}/*`, main, '--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
  const lines = result.out.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('SLF4J')).map((l) => l.replace(/\s+/g, ' ').trim());
  return { code: result.code, lines };
}

const shareGroups = (bootstrap: string, args: string[]) => tool('org.apache.kafka.tools.consumer.group.ShareGroupCommand', bootstrap, args);
const consumeValues = async (bootstrap: string, n: number) => {
  const r = await tool('org.apache.kafka.tools.consumer.ConsoleShareConsumer', bootstrap, ['--topic', 'st', '--group', 'sg', '--max-messages', String(n), '--timeout-ms', '60000']);
  return { code: r.code, values: r.lines.filter((l) => l.startsWith('value-')).sort((a, b) => Number(a.slice(6)) - Number(b.slice(6))) };
};

describe.skipIf(LIBS === null)("Kafka's kafka-share-groups and kafka-console-share-consumer", () => {
  it('a console share consumer reads 20 records; describe, reset-offsets to earliest (read again), delete-offsets, delete', async () => {
    const server = await startTestServer({
      config: { 'group.share.heartbeat.interval.ms': 500, 'group.share.min.heartbeat.interval.ms': 100, 'group.share.assignment.interval.ms': 0 },
    });
    cleanups.push(() => server.stop());
    const topic = await server.broker.topics.create('st', 1);
    const records = Array.from({ length: 20 }, (_, i) => ({ key: null, value: Buffer.from(`value-${i}`) }));
    const appended = topic.partition(0)!.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records }));
    if (!('durable' in appended)) throw new Error(appended.errorMessage);
    await appended.durable;
    // The group reads from the start (a group config, as `kafka-configs --entity-type groups` sets it).
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => void raw.socket.destroy());
    const altered = await raw.send(44, 1, { resources: [{ resourceType: 32, resourceName: 'sg', configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }], validateOnly: false } as never);
    expect((altered as { responses: Array<{ errorCode: number }> }).responses[0]!.errorCode).toBe(0);
    const all = Array.from({ length: 20 }, (_, i) => `value-${i}`);

    expect(await consumeValues(server.bootstrap, 20)).toEqual({ code: 0, values: all });
    // One batch acknowledged in one write: the share coordinator keeps the start offset written
    // with it (0), with all 20 records delivered, so no lag (Kafka's START-OFFSET too).
    expect(await shareGroups(server.bootstrap, ['--describe', '--group', 'sg'])).toEqual({ code: 0, lines: ['GROUP TOPIC PARTITION START-OFFSET LAG', 'sg st 0 0 0'] });
    expect(await shareGroups(server.bootstrap, ['--reset-offsets', '--group', 'sg', '--topic', 'st', '--to-earliest', '--execute'])).toEqual({ code: 0, lines: ['GROUP TOPIC PARTITION NEW-OFFSET', 'sg st 0 0'] });
    expect((await shareGroups(server.bootstrap, ['--describe', '--group', 'sg'])).lines).toEqual(['GROUP TOPIC PARTITION START-OFFSET LAG', 'sg st 0 0 20']);
    expect(await consumeValues(server.bootstrap, 20)).toEqual({ code: 0, values: all });
    expect(await shareGroups(server.bootstrap, ['--delete-offsets', '--group', 'sg', '--topic', 'st'])).toEqual({ code: 0, lines: ['TOPIC STATUS', 'st Successful'] });
    expect(server.broker.shareCoordinator.stateOf('sg', topic.topicId, 0)).toBeUndefined();
    expect(await shareGroups(server.bootstrap, ['--delete', '--group', 'sg'])).toEqual({ code: 0, lines: ["Deletion of requested share groups ('sg') was successful."] });
    expect(server.broker.share.group('sg')).toBeUndefined();
  }, 240_000);
});
