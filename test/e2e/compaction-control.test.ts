import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const GROUP = 'compaction-control';

/** On-demand compaction of __consumer_offsets from TypeScript, HTTP and the command line. */
describe('compacting the offsets log on demand', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: RawClient;

  /** 200 commits of increasing offsets to one partition: one key, many records, small segments. */
  async function commitMany(from: number): Promise<void> {
    for (let i = from; i < from + 200; i++) {
      const res = await client.send(8, 8, {
        ...defaultOffsetCommitRequest(), groupId: GROUP, generationIdOrMemberEpoch: -1,
        topics: [{ name: 'compacted', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: BigInt(i), committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
      expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    }
  }

  async function committed(): Promise<bigint> {
    const res = await client.send(9, 5, { groupId: GROUP, topics: [{ name: 'compacted', partitionIndexes: [0] }], groups: [], requireStable: false });
    return res.topics[0]!.partitions[0]!.committedOffset;
  }

  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0, config: { 'offsets.topic.segment.bytes': 4096, 'log.cleaner.enable': false } });
    client = await RawClient.connect(server.port);
    const created = await client.send(19, 4, { ...defaultCreateTopicsRequest(), timeoutMs: 5000, topics: [{ ...defaultCreatableTopic(), name: 'compacted', numPartitions: 1, replicationFactor: 1 }] });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('server.compactOffsetsLog() keeps the latest record per key of the closed segments', async () => {
    await commitMany(0);
    const summary = await server.compactOffsetsLog();
    expect(summary.partitionsCleaned).toBe(1);
    expect(summary.recordsBefore).toBeGreaterThan(100);
    expect(summary.recordsAfter).toBe(1);
    expect(await committed()).toBe(199n);
  });

  it('POST /offsets/compact does the same over HTTP', async () => {
    await commitMany(200);
    const res = await fetch(`${server.admin!.url}/offsets/compact`, { method: 'POST' });
    expect(res.status).toBe(200);
    const summary = (await res.json()) as { partitionsCleaned: number; recordsAfter: number };
    expect(summary).toMatchObject({ partitionsCleaned: 1, recordsAfter: 1 });
    expect(await committed()).toBe(399n);
  });

  it('kafka-mock-coordinator compact-offsets does the same from the command line', async () => {
    await commitMany(400);
    // Asynchronously: the admin API answering it runs in this very process.
    const res = await promisify(execFile)(process.execPath, [CLI, 'compact-offsets', '--admin', server.admin!.url], { timeout: 20000 });
    expect(JSON.parse(res.stdout)).toMatchObject({ partitionsCleaned: 1, recordsAfter: 1 });
    expect(await committed()).toBe(599n);
  });
});
