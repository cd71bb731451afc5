/**
 * `kmc_offsets_log_writes_total` and `kmc_offsets_log_syncs_total` (issue #16: how many commits one
 * fdatasync carries is their rise against kmc_offset_commits_total's): one connection committing
 * one request at a time gets one write per commit under every policy, and one fdatasync per commit
 * under `mock.flush.policy=always` only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { parsePrometheus } from '../support/prometheus.js';

const GROUP = 'metrics-syncs';

const commit = (offset: bigint) => ({
  groupId: GROUP,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
});

describe('kmc_offsets_log_writes_total / kmc_offsets_log_syncs_total', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it.each([
    ['always', 1],
    ['never', 0],
  ])('flush %s: three commits one after another add 3 writes and %i fdatasync each', async (policy, syncsPerCommit) => {
    const { server } = await startClosableServer(cleanups, { adminPort: 0, config: { 'mock.flush.policy': policy } });
    server.broker.topics.create('t', 1);
    const client = await RawClient.connect(server.port);
    cleanups.push(() => void client.socket.destroy());
    const scrape = async (): Promise<Map<string, number>> => parsePrometheus(await (await fetch(`${server.admin!.url}/metrics`)).text());
    // The group's partition is opened (and its segment created) by a first commit.
    expect((await client.send(8, 8, commit(1n))).topics[0]!.partitions[0]!.errorCode).toBe(0);
    const before = await scrape();
    for (const offset of [2n, 3n, 4n]) expect((await client.send(8, 8, commit(offset))).topics[0]!.partitions[0]!.errorCode).toBe(0);
    const after = await scrape();
    const rise = (name: string): number => after.get(name)! - before.get(name)!;
    expect([rise(`kmc_offset_commits_total{consumergroup="${GROUP}"}`), rise('kmc_offsets_log_writes_total'), rise('kmc_offsets_log_syncs_total')]).toEqual([3, 3, 3 * syncsPerCommit]);
    const logs = server.broker.groupLog.partitionLogs();
    expect([after.get('kmc_offsets_log_writes_total'), after.get('kmc_offsets_log_syncs_total')]).toEqual([
      logs.reduce((n, l) => n + l.stats.writes, 0),
      logs.reduce((n, l) => n + l.stats.syncs, 0),
    ]);
  });
});
