/**
 * Recovery of the `__consumer_offsets` log on start (issue 3, "Durability"), through the
 * command line (`node dist/cli.js`; run `npm run build` first):
 *   - a last batch of the active segment cut mid-record is truncated with exactly one warn
 *     line naming the file, offset and bytes dropped; every commit before it is kept, and the
 *     log takes new commits that survive another restart;
 *   - a corrupt byte inside a closed (non-last) segment stops the start with a non-zero exit
 *     and an error naming the file (committed data is never dropped silently);
 *   - a clean stop leaves Kafka's `.kafka_cleanshutdown`, after which no write can be torn: a bad
 *     last batch then stops the start too (the marker is removed at each start, so a crash leaves none).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { offsetsPartitionFor } from '../../src/util/java-hash.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const TOPIC = 'torn-topic';
/** RecordBatch v2 header size and field positions (Kafka's DefaultRecordBatch). */
const BATCH_HEADER = 61;
const LENGTH_AT = 8;
const RECORD_COUNT_AT = 57;

interface BatchPosition {
  position: number;
  size: number;
  baseOffset: bigint;
  records: number;
}

/** The batches of a segment file, by walking their length fields. */
function batchesOf(file: string): BatchPosition[] {
  const bytes = readFileSync(file);
  const out: BatchPosition[] = [];
  let position = 0;
  while (position + 12 <= bytes.length) {
    const size = bytes.readInt32BE(position + LENGTH_AT) + 12;
    if (position + size > bytes.length) break;
    out.push({ position, size, baseOffset: bytes.readBigInt64BE(position), records: bytes.readInt32BE(position + RECORD_COUNT_AT) });
    position += size;
  }
  expect(position, `${file} holds whole batches`).toBe(bytes.length);
  return out;
}

/** Segment files of `__consumer_offsets-<p>`, oldest first. */
function segmentsOf(dataDir: string, partition: number): string[] {
  const dir = join(dataDir, `__consumer_offsets-${partition}`);
  return readdirSync(dir).filter((f) => /^\d{20}\.log$/.test(f)).sort().map((f) => join(dir, f));
}

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function parsed(lines: string[]): LogLine[] {
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}
const warnings = (server: CliServer): LogLine[] => parsed(server.lines).filter((l) => l.level === 40);

async function createTopic(client: RawClient, partitions: number): Promise<void> {
  const created = await client.send(19, 5, {
    ...defaultCreateTopicsRequest(),
    topics: [{ ...defaultCreatableTopic(), name: TOPIC, numPartitions: partitions, replicationFactor: 1 }],
    timeoutMs: 5000,
  });
  expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
}

/** One OffsetCommit v8 request (a simple group): one batch in the offsets log. */
async function commit(client: RawClient, groupId: string, offsets: Array<[partition: number, offset: bigint]>): Promise<void> {
  const res = await client.send(8, 8, {
    ...defaultOffsetCommitRequest(),
    groupId,
    topics: [{ name: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: offsets.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  });
  expect(res.topics[0]!.partitions.map((p) => p.errorCode)).toEqual(offsets.map(() => ErrorCode.NONE));
}

async function fetchCommitted(port: number, groupId: string, partitions: number[]): Promise<bigint[]> {
  const client = await RawClient.connect(port);
  try {
    const res = await client.send(9, 6, { groupId, topics: [{ name: TOPIC, partitionIndexes: partitions }], groups: [], requireStable: false });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    const byPartition = new Map(res.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset]));
    return partitions.map((p) => byPartition.get(p)!);
  } finally {
    client.close();
  }
}

/** Starts the command line on `args` expecting it to fail: its exit code and output. */
async function failedStart(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  expect(output).not.toMatch(/ready on/);
  return { code, output };
}

const CLEAN_SHUTDOWN = '.kafka_cleanshutdown';

describe('offsets log recovery on start', () => {
  const dirs: Array<{ dir: string; remove: () => void }> = [];
  const servers: CliServer[] = [];
  const dataDir = (): string => {
    const d = tempDataDir('kmc-torn-tail-');
    dirs.push(d);
    return d.dir;
  };
  const start = async (args: string[]): Promise<CliServer> => {
    const server = await startCli(args);
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    for (const s of servers) await kill(s, 'SIGKILL');
    for (const d of dirs) d.remove();
  });

  it('truncates a last batch cut mid-record with one warning, keeps every earlier commit, and takes new ones', { timeout: 30_000 }, async () => {
    const dir = dataDir();
    const groupId = 'torn-tail-group';
    const partition = offsetsPartitionFor(groupId, 50);
    const args = ['--port', '0', '--data-dir', dir];

    const first = await start(args);
    const client = await RawClient.connect(first.port);
    await createTopic(client, 3);
    for (let k = 1n; k <= 10n; k++) await commit(client, groupId, [[0, k]]);
    // the last batch: two records, cut inside the second
    await commit(client, groupId, [[0, 11n], [1, 100n]]);
    client.close();
    expect(await fetchCommitted(first.port, groupId, [0, 1, 2])).toEqual([11n, 100n, -1n]);
    expect(existsSync(join(dir, CLEAN_SHUTDOWN)), 'no marker while the server runs').toBe(false);
    expect(await kill(first, 'SIGTERM')).toBe(0);
    // Kafka's marker and content (CleanShutdownFileHandler), written once every log closed.
    expect(readFileSync(join(dir, CLEAN_SHUTDOWN), 'utf8')).toBe('{"version":0,"brokerEpoch":-1}');

    const segments = segmentsOf(dir, partition);
    const active = segments[segments.length - 1]!;
    const batches = batchesOf(active);
    expect(batches.length).toBeGreaterThanOrEqual(11);
    const last = batches[batches.length - 1]!;
    expect(last.records).toBe(2);
    const cutTo = last.position + last.size - 5;
    expect(cutTo).toBeGreaterThan(last.position + BATCH_HEADER);
    truncateSync(active, cutTo);
    const dropped = cutTo - last.position;

    // After a clean stop no write was torn: the cut batch is damage, and the start stops on it.
    const refused = await failedStart(args);
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toContain(`corrupt log segment ${active} at byte ${last.position}`);
    expect(refused.output).toContain(`the server stopped cleanly last time (${CLEAN_SHUTDOWN}), so this is damage, not a write torn by a crash, and nothing was truncated`);
    expect(statSync(active).size).toBe(cutTo);
    // A crash leaves no marker: as after one, the cut batch is a torn write.
    rmSync(join(dir, CLEAN_SHUTDOWN));

    const second = await start(args);
    expect(existsSync(join(dir, CLEAN_SHUTDOWN))).toBe(false);
    const warned = warnings(second);
    expect(warned, JSON.stringify(warned)).toHaveLength(1);
    const warning = warned[0]!;
    expect(warning.msg).toContain(active);
    expect(warning.msg).toContain(String(dropped));
    expect(warning.msg).toContain(String(last.baseOffset));
    expect(warning['file']).toBe(active);
    expect(String(warning['offset'])).toBe(String(last.baseOffset));
    expect(Number(warning['bytesDropped'])).toBe(dropped);
    expect(statSync(active).size).toBe(last.position);
    // every commit before the cut batch is there; the cut batch is not (not even in part)
    expect(await fetchCommitted(second.port, groupId, [0, 1, 2])).toEqual([10n, -1n, -1n]);

    const again = await RawClient.connect(second.port);
    await commit(again, groupId, [[0, 12n], [2, 7n]]);
    again.close();
    // acknowledged means durable: SIGKILL, not a clean shutdown
    expect(await kill(second, 'SIGKILL')).toBe(null);

    const third = await start(args);
    expect(warnings(third), 'no warning on a clean log').toEqual([]);
    expect(await fetchCommitted(third.port, groupId, [0, 1, 2])).toEqual([12n, -1n, 7n]);
    const after = batchesOf(active);
    expect(after.map((b) => b.baseOffset)).toEqual([...batches.slice(0, -1).map((b) => b.baseOffset), last.baseOffset]);
    expect(await kill(third, 'SIGTERM')).toBe(0);
  });

  it('refuses to start on a corrupt batch inside a closed segment, naming the file', { timeout: 30_000 }, async () => {
    const dir = dataDir();
    const groupId = 'corrupt-middle-group';
    const partition = offsetsPartitionFor(groupId, 50);
    // Small segments (we allow under 1 MiB for tests) so the partition has several.
    const args = ['--port', '0', '--data-dir', dir, '--config', 'offsets.topic.segment.bytes=1024'];

    const first = await start(args);
    const client = await RawClient.connect(first.port);
    await createTopic(client, 1);
    for (let k = 1n; k <= 40n; k++) await commit(client, groupId, [[0, k]]);
    client.close();
    expect(await kill(first, 'SIGTERM')).toBe(0);

    const segments = segmentsOf(dir, partition);
    expect(segments.length).toBeGreaterThanOrEqual(3);
    const closed = segments[1]!; // neither the first nor the active one
    const batches = batchesOf(closed);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    const victim = batches[Math.floor(batches.length / 2)]!;
    // a byte inside the records (covered by the CRC-32C), in the middle of the file
    const at = victim.position + BATCH_HEADER + Math.floor((victim.size - BATCH_HEADER) / 2);
    const original = readFileSync(closed);
    const corrupted = Buffer.from(original);
    corrupted[at] = corrupted[at]! ^ 0xff;
    writeFileSync(closed, corrupted);

    const { code, output } = await failedStart(args);
    expect(code, output).toBe(2);
    expect(output).toContain(closed);
    // the damaged file was left alone: nothing truncated or rewritten
    expect(readFileSync(closed).equals(corrupted)).toBe(true);
    expect(segmentsOf(dir, partition)).toEqual(segments);

    // put the byte back: every commit is still there
    writeFileSync(closed, original);
    const repaired = await start(args);
    expect(warnings(repaired)).toEqual([]);
    expect(await fetchCommitted(repaired.port, groupId, [0])).toEqual([40n]);
    expect(await kill(repaired, 'SIGTERM')).toBe(0);
  });
});
