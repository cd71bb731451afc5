/**
 * KIP-848 regex subscriptions over the raw protocol against a real server with a fake clock, as
 * Kafka 4.3's `GroupMetadataManager` resolves them: off the heartbeat (a job run by the clock),
 * at most every 10 s per group (`REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`), again when topics were
 * created or `group.consumer.regex.refresh.interval.ms` passed; record 16 carries the metadata
 * version and time of the resolution, and survives a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { BrokerConfig, ConfigError } from '../../src/config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupMember } from '../../src/coordinator/consumer/member.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { hb } from '../support/kip848-group.js';

const CONFIG = { 'group.consumer.assignment.interval.ms': 0 };
const uuid = () => randomBytes(16).toString('base64url');

type Owned = Array<{ topicId: string; partitions: number[] }>;

/** A member joining with only a regex (and any other field given). */
function joinRegex(groupId: string, memberId: string, regex: string, extra: Partial<ConsumerGroupHeartbeatRequest> = {}) {
  return hb(groupId, memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicRegex: regex, topicPartitions: [], ...extra });
}

/** What a member owns, as a cooperative client reports it (its current assignment). */
function ownedOf(m: ConsumerGroupMember): Owned {
  return [...m.assigned].map(([topicId, parts]) => ({ topicId, partitions: [...parts.keys()].sort((a, b) => a - b) }));
}

/** Topic name -> partitions of a heartbeat response's assignment. */
function byTopic(server: ServerHandle, a: { topicPartitions: Owned } | null): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const t of a?.topicPartitions ?? []) out[server.broker.topics.getById(t.topicId)!.name] = [...t.partitions].sort((x, y) => x - y);
  return out;
}

describe('KIP-848 regex subscriptions (resolved off the heartbeat, rate-limited)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(time: FakeTime, options: { dataDir?: string; config?: Record<string, string | number> } = {}) {
    const { dataDir } = options;
    const { server, close } = await startClosableServer(cleanups, { config: { ...CONFIG, ...options.config }, time, ...(dataDir ? { dataDir } : {}) }, 'kmc-rx-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    /** A heartbeat at the member's current epoch, owning what it was given. */
    const beat = (groupId: string, memberId: string, extra: Partial<ConsumerGroupHeartbeatRequest> = {}) => {
      const m = server.broker.consumer.group(groupId)!.members.get(memberId)!;
      return c.send(68, 1, hb(groupId, memberId, m.memberEpoch, { topicPartitions: ownedOf(m), ...extra }));
    };
    /** A member joins with `regex`, the resolution job runs, the member heartbeats once more. */
    const joinResolved = async (groupId: string, memberId: string, regex: string) => {
      await c.send(68, 1, joinRegex(groupId, memberId, regex));
      const resolvedAt = time.now();
      time.advance(0);
      const assigned = await beat(groupId, memberId);
      return { resolvedAt, assigned, group: server.broker.consumer.group(groupId)! };
    };
    return { server, c, close, beat, joinResolved };
  }

  it('a new regex: no partitions and no epoch bump in the heartbeat; the job writes record 16 and bumps the epoch; the next heartbeat assigns', async () => {
    const time = new FakeTime(Date.now());
    const { server, c, beat } = await start(time);
    server.broker.topics.create('rx-a', 2);
    server.broker.topics.create('rx-b', 1);
    server.broker.topics.create('other', 1);
    const m = uuid();
    const joined = await c.send(68, 1, joinRegex('g', m, 'rx-.*'));
    expect(joined.errorCode).toBe(0);
    expect(joined.memberEpoch).toBe(1);
    expect(joined.assignment).toEqual({ topicPartitions: [] });
    const group = server.broker.consumer.group('g')!;
    expect(group.groupEpoch).toBe(1);
    expect(group.resolvedRegexes.size).toBe(0);

    // The job runs on the clock's next turn: record 16 (version = the metadata version: 1 at load,
    // + 3 topics created) and record 3 (the resolution changed the subscription).
    const resolvedAt = time.now();
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a', 'rx-b'], version: 4n, timestamp: BigInt(resolvedAt) });
    expect(group.groupEpoch).toBe(2);
    expect(group.metadataHash).not.toBe(0n);
    expect(group.assignmentEpoch).toBe(1);

    const next = await beat('g', m);
    expect(next.memberEpoch).toBe(2);
    expect(byTopic(server, next.assignment)).toEqual({ 'rx-a': [0, 1], 'rx-b': [0] });
  });

  it('a second regex within 10 s of the last resolution waits until the 10 s have passed', async () => {
    const time = new FakeTime(Date.now());
    const { server, c, beat, joinResolved } = await start(time);
    server.broker.topics.create('rx-a', 1);
    server.broker.topics.create('other', 1);
    const { resolvedAt: t0, group } = await joinResolved('g', uuid(), 'rx-.*');
    expect(group.groupEpoch).toBe(2);

    time.advance(1000);
    const b = uuid();
    const jb = await c.send(68, 1, joinRegex('g', b, 'oth.*'));
    expect(jb.errorCode).toBe(0);
    expect(jb.assignment).toEqual({ topicPartitions: [] });
    time.advance(0);
    expect(group.resolvedRegexes.has('oth.*')).toBe(false);
    expect(group.groupEpoch).toBe(2);

    // Exactly 10 s after the last resolution: still too early (Kafka: now <= last + 10000).
    time.advance(9000);
    expect(time.now()).toBe(t0 + 10_000);
    await beat('g', b);
    time.advance(0);
    expect(group.resolvedRegexes.has('oth.*')).toBe(false);

    time.advance(1);
    await beat('g', b);
    time.advance(0);
    // Every regex of the group is resolved again, together.
    expect(group.resolvedRegexes.get('oth.*')).toEqual({ topics: ['other'], version: 3n, timestamp: BigInt(t0 + 10_001) });
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a'], version: 3n, timestamp: BigInt(t0 + 10_001) });
    expect(group.groupEpoch).toBe(3);
    const rb = await beat('g', b);
    expect(rb.memberEpoch).toBe(3);
    expect(byTopic(server, rb.assignment)).toEqual({ other: [0] });
  });

  it('picks up a new matching topic after the rate-limit window, not one that does not match; a non-matching topic only refreshes the version', async () => {
    const time = new FakeTime(Date.now());
    const { server, beat, joinResolved } = await start(time);
    server.broker.topics.create('rx-a', 1);
    const m = uuid();
    const { resolvedAt: t0, group } = await joinResolved('g', m, 'rx-.*');
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a'], version: 2n, timestamp: BigInt(t0) });
    const epoch = group.groupEpoch;

    server.broker.topics.create('rx-c', 2);
    server.broker.topics.create('zz', 1);
    time.advance(5000);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')!.topics).toEqual(['rx-a']);
    expect(group.groupEpoch).toBe(epoch);

    time.advance(5001);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a', 'rx-c'], version: 4n, timestamp: BigInt(t0 + 10_001) });
    expect(group.groupEpoch).toBe(epoch + 1);
    const r = await beat('g', m);
    expect(r.memberEpoch).toBe(epoch + 1);
    expect(byTopic(server, r.assignment)).toEqual({ 'rx-a': [0], 'rx-c': [0, 1] });

    // A topic the regex does not match: resolved again (a topic was created), same topics, no bump.
    server.broker.topics.create('zz-2', 1);
    time.advance(10_001);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a', 'rx-c'], version: 5n, timestamp: BigInt(t0 + 20_002) });
    expect(group.groupEpoch).toBe(epoch + 1);

    // Nothing new: no resolution before group.consumer.regex.refresh.interval.ms (600000).
    time.advance(10_001);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')!.timestamp).toBe(BigInt(t0 + 20_002));
  });

  it('resolves again every group.consumer.regex.refresh.interval.ms without topic changes', async () => {
    const time = new FakeTime(Date.now());
    const { server, beat, joinResolved } = await start(time, { config: { 'group.consumer.regex.refresh.interval.ms': 20_000 } });
    server.broker.topics.create('rx-a', 1);
    const m = uuid();
    const { resolvedAt: t0, group } = await joinResolved('g', m, 'rx-.*');
    time.advance(20_000);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')!.timestamp).toBe(BigInt(t0));
    time.advance(1);
    await beat('g', m);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a'], version: 2n, timestamp: BigInt(t0 + 20_001) });
    expect(() => new BrokerConfig({ 'group.consumer.regex.refresh.interval.ms': 9999 })).toThrow(ConfigError);
  });

  it('tombstones a regex when its last member changes regex or leaves; a resolved regex or dropping one bumps the epoch at once', async () => {
    const time = new FakeTime(Date.now());
    const { server, c, beat, joinResolved } = await start(time);
    server.broker.topics.create('rx-a', 1);
    server.broker.topics.create('rx-b', 1);
    const a = uuid();
    const b = uuid();
    const { group } = await joinResolved('g', a, 'rx-a');
    expect([...group.resolvedRegexes.keys()]).toEqual(['rx-a']);
    let epoch = group.groupEpoch;

    // B takes the regex A already resolved: REGEX_UPDATED_AND_RESOLVED, the epoch bumps at once.
    const jb = await c.send(68, 1, joinRegex('g', b, 'rx-a'));
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(jb.memberEpoch).toBe(epoch + 1);
    epoch += 1;

    // A moves to a new regex: rx-a still has B, so no tombstone; the new one waits (REGEX_UPDATED, no bump).
    await beat('g', a, { subscribedTopicRegex: 'rx-b' });
    expect([...group.resolvedRegexes.keys()]).toEqual(['rx-a']);
    expect(group.groupEpoch).toBe(epoch);
    // B, the last member of rx-a, moves to rx-b: rx-a is tombstoned in that heartbeat, no bump.
    await beat('g', b, { subscribedTopicRegex: 'rx-b' });
    expect(group.resolvedRegexes.size).toBe(0);
    expect(group.groupEpoch).toBe(epoch);
    expect(group.members.get(b)!.assigned.size).toBe(0);
    // The 10 s are counted from the tombstoned resolution, as Kafka reads the group before it.
    time.advance(0);
    expect(group.resolvedRegexes.size).toBe(0);
    time.advance(10_001);
    await beat('g', a);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-b')!.topics).toEqual(['rx-b']);
    expect(group.groupEpoch).toBe(epoch + 1);
    epoch += 1;

    // A drops its regex (its topic names stay empty): REGEX_UPDATED_AND_RESOLVED, the epoch bumps
    // at once; rx-b keeps B.
    await beat('g', a, { subscribedTopicRegex: '' });
    expect(group.groupEpoch).toBe(epoch + 1);
    expect([...group.resolvedRegexes.keys()]).toEqual(['rx-b']);

    // B, the last member of rx-b, leaves: rx-b is tombstoned.
    const left = await c.send(68, 1, hb('g', b, -1));
    expect(left.errorCode).toBe(0);
    expect(group.resolvedRegexes.size).toBe(0);
  });

  it('the job writes nothing for a regex nobody subscribes to any more', async () => {
    const time = new FakeTime(Date.now());
    const { server, c } = await start(time);
    server.broker.topics.create('rx-a', 1);
    const m = uuid();
    await c.send(68, 1, joinRegex('g', m, 'rx-.*'));
    expect((await c.send(68, 1, hb('g', m, -1))).errorCode).toBe(0);
    const group = server.broker.consumer.group('g')!;
    const epoch = group.groupEpoch;
    time.advance(0);
    expect(group.resolvedRegexes.size).toBe(0);
    expect(group.groupEpoch).toBe(epoch);
  });

  it('a restart replays record 16 (topics, version, timestamp): no resolution within 10 s of it, then one with a newer version', async () => {
    const time = new FakeTime(Date.now());
    const data = tempDataDir('kmc-rx-restart-');
    cleanups.push(() => data.remove());
    const first = await start(time, { dataDir: data.dir });
    first.server.broker.topics.create('rx-a', 1);
    const m = uuid();
    const { resolvedAt: t0, assigned, group: before } = await first.joinResolved('g', m, 'rx-.*');
    expect(Object.keys(byTopic(first.server, assigned.assignment))).toEqual(['rx-a']);
    const epoch = before.groupEpoch;
    await first.close();

    time.advance(1000);
    const second = await start(time, { dataDir: data.dir });
    const group = second.server.broker.consumer.group('g')!;
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a'], version: 2n, timestamp: BigInt(t0) });
    const r = await second.beat('g', m);
    expect(r.errorCode).toBe(0);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')!.timestamp).toBe(BigInt(t0));
    expect(group.groupEpoch).toBe(epoch);

    // Past the 10 s: resolved again, as after a Kafka coordinator failover (the metadata version
    // at load is above every logged one); same topics, so no epoch bump.
    time.advance(9001);
    expect((await second.beat('g', m)).errorCode).toBe(ErrorCode.NONE);
    time.advance(0);
    expect(group.resolvedRegexes.get('rx-.*')).toEqual({ topics: ['rx-a'], version: 3n, timestamp: BigInt(t0 + 10_001) });
    expect(group.groupEpoch).toBe(epoch);
  });
});
