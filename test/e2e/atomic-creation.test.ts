/**
 * Topic and partition creation is atomic across a crash (Kafka creates them in one metadata record):
 * a creation marker (`kmc-pending-creation.<topic id>.<from>`) is durable before the first directory
 * and removed once the directories and configs are; a start that finds one (kill -9 mid-creation)
 * undoes that creation, so no topic with a partial partition count, or without its configs, comes
 * back. The state a crash leaves is made here from a real creation plus the marker it would have
 * left, so the test does not depend on when a SIGKILL lands; the marker is checked to be gone after
 * a completed creation. A DeleteTopics interrupted between its slices leaves the same state ('half':
 * the marker of its topic id with from 0, some partitions' directories gone), which a start finishes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const markers = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('kmc-pending-creation'));

describe('atomic creation', () => {
  it('a start undoes a topic creation or a partition addition that a crash interrupted, configs included', async () => {
    const first = await startClosableServer(cleanups);
    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => raw.close());
    const created = await raw.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [
      { ...defaultCreatableTopic(), name: 'whole', numPartitions: 2, replicationFactor: 1 },
      { ...defaultCreatableTopic(), name: 'half', numPartitions: 3, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '123456' }] },
    ], timeoutMs: 5000 });
    expect(created.topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    expect((await raw.send(37, 1, { topics: [{ name: 'whole', count: 4, assignments: null }], timeoutMs: 5000, validateOnly: false })).results[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(markers(first.dataDir)).toEqual([]);
    const halfId = first.server.broker.topics.get('half')!.id;
    const wholeId = first.server.broker.topics.get('whole')!.id;
    raw.close();
    await first.close();
    expect(JSON.parse(readFileSync(join(first.dataDir, 'kmc-configs.json'), 'utf8')).topics[halfId]).toEqual({ name: 'half', configs: { 'retention.ms': '123456' } });

    // What kill -9 during both creations leaves: their markers, 'half' with 2 of its 3 partitions,
    // 'whole' with the partitions 2 and 3 being added.
    writeFileSync(join(first.dataDir, `kmc-pending-creation.${halfId}.0`), `${halfId} 0 half\n`);
    rmSync(join(first.dataDir, 'half-2'), { recursive: true });
    writeFileSync(join(first.dataDir, `kmc-pending-creation.${wholeId}.2`), `${wholeId} 2 whole\n`);

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
    expect(second.server.broker.topics.get('half')).toBeUndefined();
    expect(second.server.broker.topics.get('whole')!.partitionCount).toBe(2);
    expect(readdirSync(first.dataDir).filter((n) => /^(half|whole)-\d+$/.test(n)).sort()).toEqual(['whole-0', 'whole-1']);
    expect(markers(first.dataDir)).toEqual([]);
    expect(JSON.parse(readFileSync(join(first.dataDir, 'kmc-configs.json'), 'utf8')).topics[halfId]).toBeUndefined();
    // The name is free again.
    second.server.broker.topics.create('half', 1);
    expect(second.server.broker.topics.get('half')!.partitionCount).toBe(1);
  });
});
