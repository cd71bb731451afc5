/**
 * Kafka 4.3's own log dumper (org.apache.kafka.tools.DumpLogSegments, what kafka-dump-log.sh
 * runs) reads the __consumer_offsets segments our server writes: every batch passes its CRC
 * check, every record decodes to what we meant to write, and our `dump-log` prints the same
 * lines, for every record type of the generated registry in each of the three coordinator logs.
 * Needs the Kafka jars that test/support/provision.ts fetches (skipped without java and mvn).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { promisify } from 'node:util';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerHandle } from '../../src/index.js';
import { clients } from '../support/clients.js';
import { dumpLogFile, type RecordFormat } from '../../src/tools/dump-log.js';
import { RawClient } from '../support/raw-client.js';
import { kafkaClient, groupConsumer, waitFor } from '../support/kafkajs.js';
import { fixtureSegment } from '../tools/offsets-fixtures.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { encodeRecordKey, encodeRecordValue } from '../../src/records/coordinator-record.js';
import { COORDINATOR_RECORD_TYPES, type CoordinatorLog } from '../../src/records/schemas/record-types.js';
import { recordSamples } from '../support/record-samples.js';

/** Kafka's jars, from test/support/provision.ts (scripts/fetch-kafka.sh); null without java/mvn here. */
const LIBS = clients().kafkaLibs;
const run = promisify(execFile);

/** Kafka's tool with `decoder` (null: `--print-data-log` alone, keys and values as text). */
async function kafkaDump(files: string[], decoder: string | null = '--offsets-decoder'): Promise<string[]> {
  const { stdout } = await run(
    'java',
    ['-cp', `${LIBS!}/*`, 'org.apache.kafka.tools.DumpLogSegments', ...(decoder === null ? [] : [decoder]), '--print-data-log', '--files', files.join(',')],
    { encoding: 'utf8', timeout: 120000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.split('\n').filter((l) => l !== '');
}

function ourDump(files: string[], log: RecordFormat = '__consumer_offsets'): string[] {
  const lines: string[] = [];
  for (const f of files) dumpLogFile(f, (l) => lines.push(l), (l) => lines.push(`stderr: ${l}`), log);
  return lines;
}

const normalize = (l: string): string => l.replace(/\s+/g, ' ').trim();

interface DumpedRecord {
  offset: number;
  key: { type: string; data: Record<string, unknown> };
  payload: { version: string; data: Record<string, any> } | '<DELETE>';
}

function records(lines: string[]): DumpedRecord[] {
  return lines
    .filter((l) => l.startsWith('| offset: '))
    .map((l) => {
      const m = /^\| offset: (\d+) .* key: (\{.*\}) payload: (.*)$/.exec(l);
      if (!m) throw new Error(`record line without key/payload: ${l}`);
      return { offset: Number(m[1]), key: JSON.parse(m[2]!), payload: m[3] === '<DELETE>' ? '<DELETE>' : JSON.parse(m[3]!) };
    });
}

describe.skipIf(LIBS === null)("Kafka 4.3's DumpLogSegments on our __consumer_offsets segments", () => {
  let dataDir: string;
  let server: ServerHandle | null = null;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'kmc-kafka-dump-'));
  });
  afterAll(async () => {
    await server?.close().catch(() => undefined);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('decodes the commits and the classic group we wrote, with valid CRCs, as our dump-log does', async () => {
    server = await startServer({ port: 0, dataDir, config: { 'num.partitions': '3' } });
    const kafka = kafkaClient(server.bootstrap, 'dump-e2e');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'e2e.dump', numPartitions: 3 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'e2e.dump', messages: Array.from({ length: 9 }, (_, i) => ({ partition: i % 3, value: `v${i}` })) });
    await producer.disconnect();

    // A classic consumer-protocol group: join, consume, commit, leave.
    const consumer = groupConsumer(kafka, 'e2e.dump.group');
    let seen = 0;
    await consumer.connect();
    await consumer.subscribe({ topic: 'e2e.dump', fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async () => { seen++; } });
    await waitFor(() => seen >= 9, 30000, 'all messages');
    await consumer.commitOffsets([
      { topic: 'e2e.dump', partition: 0, offset: '3', metadata: 'meta "0"' } as never,
      { topic: 'e2e.dump', partition: 1, offset: '2' },
      { topic: 'e2e.dump', partition: 2, offset: '1' },
    ]);
    await consumer.disconnect();

    // Standalone commits of a simple group, over the raw protocol.
    const client = await RawClient.connect(server.port);
    const committed = await client.send(8, 2, {
      groupId: 'e2e.simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'e2e.dump', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [
        { partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' },
        { partitionIndex: 2, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: 'x' },
      ] }],
    });
    expect(committed.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([0, 0]);
    client.close();
    await server.close();
    server = null;

    const segments = readdirSync(dataDir)
      .filter((d) => d.startsWith('__consumer_offsets-'))
      .flatMap((d) => readdirSync(join(dataDir, d)).filter((f) => f.endsWith('.log')).map((f) => join(dataDir, d, f)))
      .filter((f) => statSync(f).size > 0)
      .sort();
    expect(segments.length).toBeGreaterThan(0);

    const kafkaLines = await kafkaDump(segments);
    const ours = ourDump(segments);
    expect(ours.map(normalize)).toEqual(kafkaLines.map(normalize));

    const batchLines = kafkaLines.filter((l) => l.startsWith('baseOffset: '));
    expect(batchLines.length).toBeGreaterThan(0);
    for (const l of batchLines) expect(l).toMatch(/ magic: 2 compresscodec: none crc: \d+ isvalid: true$/);
    expect(kafkaLines.some((l) => /Error at offset|Unknown record type|invalid bytes/.test(l))).toBe(false);

    const recs = records(kafkaLines);
    const commitsOf = (group: string, partition: number): DumpedRecord[] =>
      recs.filter((r) => r.key.type === '1' && r.key.data['group'] === group && r.key.data['topic'] === 'e2e.dump' && r.key.data['partition'] === partition);
    const lastCommit = (group: string, partition: number): Record<string, any> => {
      const all = commitsOf(group, partition);
      expect(all.length).toBeGreaterThan(0);
      const last = all[all.length - 1]!;
      expect(last.payload).not.toBe('<DELETE>');
      const p = last.payload as { version: string; data: Record<string, any> };
      expect(p.version).toBe('4');
      return p.data;
    };
    for (const [group, partition, offset, metadata] of [
      ['e2e.dump.group', 0, 3, 'meta "0"'],
      ['e2e.dump.group', 1, 2, ''],
      ['e2e.dump.group', 2, 1, ''],
      ['e2e.simple', 0, 7, ''],
      ['e2e.simple', 2, 5, 'x'],
    ] as const) {
      const data = lastCommit(group, partition);
      expect(Object.keys(data).slice(0, 4)).toEqual(['offset', 'leaderEpoch', 'metadata', 'commitTimestamp']);
      expect(data['offset']).toBe(offset);
      expect(data['metadata']).toBe(metadata);
      expect(typeof data['commitTimestamp']).toBe('number');
    }

    // The classic group: a Stable record with the member's decoded subscription and assignment,
    // and, after it left, an Empty one.
    const groupRecords = recs.filter((r) => r.key.type === '2' && r.key.data['group'] === 'e2e.dump.group');
    const values = groupRecords.map((r) => r.payload).filter((p): p is { version: string; data: Record<string, any> } => p !== '<DELETE>');
    expect(values.every((v) => v.version === '3')).toBe(true);
    const withMember = values.find((v) => v.data['members'].length === 1)!;
    expect(withMember).toBeDefined();
    expect(withMember.data['protocolType']).toBe('consumer');
    const member = withMember.data['members'][0];
    expect(member.clientId).toBe('dump-e2e');
    expect(member.subscription.topics).toEqual(['e2e.dump']);
    expect(member.assignment.assignedPartitions).toEqual([{ topic: 'e2e.dump', partitions: [0, 1, 2] }]);
    const last = values[values.length - 1]!;
    expect(last.data['members']).toEqual([]);
  });

  it('decodes every record type we know exactly as we print it (synthetic segment)', async () => {
    const { segment, records: expected } = fixtureSegment();
    const dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-fixture-'));
    try {
      const file = join(dir, '00000000000000000000.log');
      writeFileSync(file, segment);
      const kafkaLines = await kafkaDump([file]);
      expect(ourDump([file])).toEqual(kafkaLines);
      const recordLines = kafkaLines.filter((l) => l.startsWith('| '));
      expect(recordLines.map((l) => l.slice(l.indexOf(' key: ') + 1))).toEqual(
        expected.map((r) => `key: ${r.key}` + (r.payload !== undefined ? ` payload: ${r.payload}` : '')),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('decodes the __share_group_state segments a share session wrote (snapshot, updates, tombstone) as our dump-log does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-share-dump-'));
    const share = await startServer({ port: 0, dataDir: dir, logLevel: 'silent' });
    try {
      const topic = await share.broker.topics.create('share-dump', 1);
      const partition = topic.partition(0)!;
      const appended = partition.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [0, 1, 2].map((i) => ({ key: null, value: Buffer.from(`v${i}`) })) }));
      if ('durable' in appended) await appended.durable;
      await share.broker.sharePersister.initializeState('sg', [{ topicId: topic.id, partition: 0, stateEpoch: 1, startOffset: -1n }]);
      await share.broker.sharePersister.initializeState('sg-gone', [{ topicId: topic.id, partition: 0, stateEpoch: 1, startOffset: 0n }]);
      await share.broker.sharePersister.deleteState('sg-gone', [{ topicId: topic.id, partition: 0 }]);
      await share.broker.shareCoordinator.writeState('sg', { topicId: topic.id, partition: 0, stateEpoch: 1, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 2, stateBatches: [{ firstOffset: 0n, lastOffset: 1n, deliveryState: 2, deliveryCount: 1 }, { firstOffset: 2n, lastOffset: 2n, deliveryState: 0, deliveryCount: 1 }] });
    } finally {
      await share.close();
    }
    try {
      const files = readdirSync(dir)
        .filter((d) => d.startsWith('__share_group_state-'))
        .map((d) => join(dir, d, '00000000000000000000.log'))
        .filter((f) => statSync(f, { throwIfNoEntry: false })?.size);
      expect(files.length).toBeGreaterThanOrEqual(1);
      const kafkaLines = await kafkaDump(files, '--share-group-state-decoder');
      const printed = records(kafkaLines);
      expect(printed.map((r) => [Number(r.key.type), r.key.data['groupId'], r.payload === '<DELETE>' ? 'DELETE' : (r.payload as { data: Record<string, unknown> }).data['startOffset']])).toEqual(
        expect.arrayContaining([[0, 'sg', -1], [0, 'sg-gone', 0], [0, 'sg-gone', 'DELETE'], [1, 'sg', 0]]),
      );
      expect(ourDump(files, '__share_group_state')).toEqual(kafkaLines);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints a user topic's segment as --print-data-log alone does (keys and values as text), and picks that format from the directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-data-dump-'));
    const broker = await startServer({ port: 0, dataDir: dir, logLevel: 'silent' });
    try {
      const topic = await broker.broker.topics.create('orders', 1);
      const batches = [
        { key: Buffer.from('k1'), value: Buffer.from('{"id":1}'), headers: [{ key: 'trace', value: Buffer.from('t') }] },
        { key: null, value: Buffer.from('no key') },
        { key: Buffer.from('k2'), value: null }, // a tombstone
        { key: Buffer.from(''), value: Buffer.from('') },
        { key: Buffer.from([0x6b, 0xff, 0x33]), value: Buffer.from('bad byte in the key') },
      ];
      const appended = topic.partition(0)!.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: batches }));
      if ('durable' in appended) await appended.durable;
    } finally {
      await broker.close();
    }
    try {
      const file = join(dir, 'orders-0', '00000000000000000000.log');
      const kafkaLines = await kafkaDump([file], null);
      expect(kafkaLines.filter((l) => l.startsWith('| ')).map((l) => l.slice(l.indexOf(' headerKeys: ') + 1))).toEqual([
        'headerKeys: [trace] key: k1 payload: {"id":1}',
        'headerKeys: [] payload: no key',
        'headerKeys: [] key: k2',
        'headerKeys: [] key:  payload: ',
        'headerKeys: [] key: k\uFFFD3 payload: bad byte in the key',
      ]);
      expect(ourDump([file], 'strings')).toEqual(kafkaLines);
      const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
      for (const args of [['--print-data-log', file], [file]]) {
        const res = spawnSync(process.execPath, [cli, 'dump-log', ...args], { encoding: 'utf8', timeout: 20000 });
        expect(res.stderr).toBe('');
        expect(res.stdout.split('\n').filter((l) => l !== '')).toEqual(kafkaLines);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const DECODERS: ReadonlyArray<readonly [CoordinatorLog, string]> = [
    ['__consumer_offsets', '--offsets-decoder'],
    ['__transaction_state', '--transaction-log-decoder'],
    ['__share_group_state', '--share-group-state-decoder'],
  ];
  for (const [log, decoder] of DECODERS) {
    it(`prints every ${log} record type of the registry, at every value version, as ${decoder} does`, async () => {
      const samples = recordSamples(log);
      const segment = Buffer.concat(
        samples.map((s, i) =>
          encodeRecordBatch({
            baseOffset: BigInt(i),
            timestamp: 1793247619231n + BigInt(i),
            records: [{ key: encodeRecordKey(s.input), value: encodeRecordValue(s.input, s.valueVersion ?? undefined) }],
            partitionLeaderEpoch: 0,
          }),
        ),
      );
      const dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-registry-'));
      try {
        const file = join(dir, '00000000000000000000.log');
        writeFileSync(file, segment);
        const kafkaLines = await kafkaDump([file], decoder);
        // Kafka decodes every sample: each record line has a key and a payload.
        expect(kafkaLines.filter((l) => /Error at offset|Unknown record type/.test(l))).toEqual([]);
        const printed = records(kafkaLines);
        expect(printed).toHaveLength(samples.length);
        expect(new Set(printed.map((r) => Number(r.key.type)))).toEqual(new Set(COORDINATOR_RECORD_TYPES[log].map((e) => e.type)));
        expect(printed.filter((r) => r.payload === '<DELETE>')).toHaveLength(COORDINATOR_RECORD_TYPES[log].length);
        expect(ourDump([file], log)).toEqual(kafkaLines);
        // The command line takes Kafka's decoder flag.
        const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
        const res = spawnSync(process.execPath, [cli, 'dump-log', decoder, file], { encoding: 'utf8', timeout: 20000, maxBuffer: 64 * 1024 * 1024 });
        expect(res.stderr).toBe('');
        expect(res.stdout.split('\n').filter((l) => l !== '')).toEqual(kafkaLines);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
