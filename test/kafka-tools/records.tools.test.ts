/**
 * The record tools against our server and Kafka 4.3.1: kafka-console-producer and
 * kafka-console-consumer (classic group and `group.protocol=consumer`), kafka-get-offsets
 * (earliest, latest, by timestamp), kafka-delete-records, kafka-log-dirs, and kafka-dump-log on each
 * broker's own segment of the same records.
 */
import { describe } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { toolCase, useToolTargets, type Target } from './harness.js';

useToolTargets();

async function produceLines(t: Target, topic: string, count: number, partitions = 2): Promise<void> {
  await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', String(partitions)]);
  const lines = Array.from({ length: count }, (_, i) => `k${i}:v${i}`).join('\n') + '\n';
  const r = await t.run('kafka-console-producer', ['--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:'], { stdin: lines });
  if (r.code !== 0) throw new Error(`console producer: ${r.stderr}`);
}

/** Console consumer output, one record per line, sorted (records of different partitions interleave by timing). */
async function consume(t: Target, label: string, args: string[]): Promise<void> {
  const r = await t.run('kafka-console-consumer', [...args, '--from-beginning', '--timeout-ms', '20000', '--property', 'print.key=true', '--property', 'print.partition=true', '--property', 'print.offset=true']);
  t.record(label, `exit ${r.code}\n${r.stdout.trim().split('\n').sort().join('\n')}\nstderr: ${r.stderr.trim()}`);
}

describe('console producer and consumer', () => {
  toolCase('produce keyed lines, consume them from the beginning (no group, classic group, consumer group)', async (t) => {
    const topic = t.topic('console');
    await produceLines(t, topic, 8);
    await consume(t, 'no group', ['--topic', topic, '--max-messages', '8']);
    await consume(t, 'classic group', ['--topic', topic, '--max-messages', '8', '--group', t.topic('console-classic')]);
    await consume(t, 'group.protocol=consumer', ['--topic', topic, '--max-messages', '8', '--group', t.topic('console-848'), '--consumer-property', 'group.protocol=consumer']);
    await t.call('the groups committed', 'kafka-consumer-groups', ['--describe', '--group', t.topic('console-classic')]);
  });
});

describe('kafka-get-offsets, kafka-delete-records, kafka-log-dirs', () => {
  toolCase('offsets before and after deleting records; log dirs', async (t) => {
    const topic = t.topic('offs');
    await produceLines(t, topic, 10);
    await t.call('latest', 'kafka-get-offsets', ['--topic', topic]);
    await t.call('earliest', 'kafka-get-offsets', ['--topic', topic, '--time', '-2']);
    await t.call('a timestamp in the future', 'kafka-get-offsets', ['--topic', topic, '--time', String(Date.now() + 3_600_000)]);
    const json = t.file('delete.json', JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, offset: 2 }, { topic, partition: 1, offset: -1 }] }));
    // The tool prints the partitions in the order of the broker's answer (Kafka's: hash order).
    await t.call('delete records', 'kafka-delete-records', ['--offset-json-file', json], { sortLines: true });
    await t.call('earliest after', 'kafka-get-offsets', ['--topic', topic, '--time', 'earliest']);
    const tooFar = t.file('too-far.json', JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, offset: 99 }] }));
    await t.call('delete beyond the high watermark', 'kafka-delete-records', ['--offset-json-file', tooFar]);
    const dirs = await t.run('kafka-log-dirs', ['--describe', '--topic-list', topic]);
    // The last line is the JSON; partitions come in hash order.
    const report = JSON.parse(dirs.stdout.trim().split('\n').pop()!) as { brokers: Array<{ broker: number; logDirs: Array<{ partitions: Array<{ partition: string }> }> }> };
    for (const b of report.brokers) for (const d of b.logDirs) d.partitions.sort((x, y) => x.partition.localeCompare(y.partition));
    t.record('log dirs', `exit ${dirs.code}\n${dirs.stdout.trim().split('\n').slice(0, -1).join('\n')}\n${JSON.stringify(report)}`);
  });
});

describe('kafka-dump-log', () => {
  toolCase("dumps each broker's segment of the same produced records", async (t) => {
    const topic = t.topic('dump');
    await produceLines(t, topic, 4, 1);
    const root = t.server ? t.server.dataDir : await kafkaDataDir();
    const dir = join(root, `${topic}-0`);
    const segment = join(dir, readdirSync(dir).find((f) => f.endsWith('.log'))!);
    await t.call('dump-log --print-data-log', 'kafka-dump-log', ['--print-data-log', '--files', segment], { bootstrap: false });
  });
});

/** The oracle's data directory (test/conformance/oracle.ts), found from its log dirs report. */
async function kafkaDataDir(): Promise<string> {
  const { inject } = await import('vitest');
  const { runTool } = await import('./harness.js');
  const r = await runTool('kafka-log-dirs', ['--bootstrap-server', `127.0.0.1:${inject('kafkaPort')}`, '--describe']);
  const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as { brokers: Array<{ logDirs: Array<{ logDir: string }> }> };
  return report.brokers[0]!.logDirs[0]!.logDir;
}
