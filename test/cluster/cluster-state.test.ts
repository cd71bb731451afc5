import { describe, expect, it } from 'vitest';
import { ClusterError, ClusterState } from '../../src/cluster/cluster-state.js';
import { javaStringHashCode, kafkaAbs, offsetsPartitionFor } from '../../src/util/java-hash.js';
import { capApiVersions, KAFKA_API_VERSIONS, kafkaRelease, parseApiVersionOverrides, releaseRange, ApiVersionsError } from '../../src/protocol/kafka-versions.js';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { advertisedApiKeys } from '../../src/apis/18-api-versions.js';

function cluster(count: number, topics: Record<string, number> = { t: 6 }): ClusterState {
  return new ClusterState({ firstId: 1, count, offsetsPartitions: 50, partitionCount: (name) => topics[name] });
}

describe('ClusterState', () => {
  it('spreads partitions: partition p of topic t is led by broker (p + abs(javaHash(t))) % N, replicas in broker order', () => {
    const c = cluster(3);
    const shift = kafkaAbs(javaStringHashCode('t')) % 3;
    for (let p = 0; p < 6; p++) {
      const leader = 1 + ((p + shift) % 3);
      expect(c.leaderOf('t', p)).toBe(leader);
      expect(c.replicas('t', p)).toEqual([leader, 1 + (leader % 3), 1 + ((leader + 1) % 3)]);
    }
    expect(new Set([0, 1, 2].map((p) => c.leaderOf('t', p)))).toEqual(new Set([1, 2, 3]));
  });

  it("names a group's coordinator: the leader of its __consumer_offsets partition", () => {
    const c = cluster(3);
    for (const g of ['g1', 'orders', 'x']) {
      expect(c.offsetsPartitionOf(g)).toBe(offsetsPartitionFor(g, 50));
      expect(c.coordinatorOf(g)).toBe(c.leaderOf('__consumer_offsets', offsetsPartitionFor(g, 50)));
    }
    expect(cluster(1).coordinatorOf('anything')).toBe(1);
  });

  it('moves coordinators and leaders; a stopped broker fails over to the next live replica and gets them back', () => {
    const c = cluster(3);
    const first = c.coordinatorOf('g1');
    const other = first === 3 ? 1 : first + 1;
    c.moveCoordinator('g1', other);
    expect(c.coordinatorOf('g1')).toBe(other);
    c.setUp(other, false);
    expect(c.coordinatorOf('g1')).not.toBe(other);
    expect(c.isUp(c.coordinatorOf('g1'))).toBe(true);
    c.setUp(other, true);
    expect(c.coordinatorOf('g1')).toBe(other);

    const leader = c.leaderOf('t', 0);
    const target = leader === 1 ? 2 : 1;
    c.moveLeader('t', 0, target);
    expect(c.leaderOf('t', 0)).toBe(target);
    expect(c.replicas('t', 0)[0]).toBe(target);
    expect(c.replicas('t', 0)).toHaveLength(3);
    c.setUp(target, false);
    expect(c.leaderOf('t', 0)).not.toBe(target);
    expect(c.liveBrokers().map((b) => b.id)).not.toContain(target);
    expect(c.controllerId()).toBe(target === 1 ? 2 : 1);
    for (const id of [1, 2, 3]) c.setUp(id, false);
    expect(c.leaderOf('t', 0)).toBe(-1);
    expect(c.controllerId()).toBe(-1);
  });

  it('refuses unknown brokers, topics and partitions', () => {
    const c = cluster(2);
    expect(() => c.moveCoordinator('g', 9)).toThrow(ClusterError);
    expect(() => c.moveLeader('nope', 0, 1)).toThrow(/unknown topic/);
    expect(() => c.moveLeader('t', 6, 1)).toThrow(/no partition 6/);
    expect(() => c.moveLeader('__consumer_offsets', 49, 2)).not.toThrow();
    expect(() => new ClusterState({ firstId: 0, count: 0, offsetsPartitions: 1, partitionCount: () => undefined })).toThrow(ClusterError);
  });

  it('keeps COORDINATOR_LOAD_IN_PROGRESS windows per group and for all groups', () => {
    const c = cluster(1);
    c.setLoadInProgress('g1', 1000, 10_000);
    expect(c.isLoading('g1', 10_500)).toBe(true);
    expect(c.isLoading('g2', 10_500)).toBe(false);
    expect(c.isLoading('g1', 11_000)).toBe(false);
    c.setLoadInProgress(null, 500, 20_000);
    expect(c.isLoading('g2', 20_100)).toBe(true);
    expect(c.anyLoading(20_100).all).toBe(true);
    c.setLoadInProgress(null, 0);
    expect(c.isLoading('g2', 20_100)).toBe(false);
  });
});

describe('version capping', () => {
  it('the table knows every API this server serves, in every release, and 4.3 matches the handlers', () => {
    // The share-group APIs are unstable (not advertised) before 4.1, the streams-group APIs before 4.2.
    const shareApis = new Set([76, 77, 78, 79, 83, 84, 85, 86, 87, 90, 91, 92]);
    const streamsApis = new Set([88, 89]);
    for (const release of Object.keys(KAFKA_API_VERSIONS)) {
      for (const key of API_HANDLERS.keys()) {
        const absent = (shareApis.has(key) && (release === '3.9' || release === '4.0')) || (streamsApis.has(key) && (release === '3.9' || release === '4.0' || release === '4.1'));
        if (absent) expect(releaseRange(kafkaRelease(release), key), `${release} api ${key}`).toBeNull();
        else expect(releaseRange(kafkaRelease(release), key), `${release} api ${key}`).not.toBeNull();
      }
    }
    for (const [key, api] of API_HANDLERS) {
      expect(releaseRange('4.3', key), api.name).toEqual([api.advertisedMinVersion ?? api.minVersion, api.maxVersion]);
    }
  });

  it('caps to a release: intersection with what we serve, unstable latest versions left out', () => {
    const capped = capApiVersions(API_HANDLERS, { kafkaVersion: '3.9' });
    const ranges = new Map(advertisedApiKeys(capped).map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
    expect(ranges.get(0)).toEqual([0, 11]); // Produce: advertised from v0, served from v3
    expect(capped.get(0)!.minVersion).toBe(3);
    expect(ranges.get(1)).toEqual([4, 17]); // Fetch: we do not serve v0-3
    expect(ranges.get(8)).toEqual([2, 9]);
    expect(ranges.get(68)).toEqual([0, 0]);
    const v41 = new Map(advertisedApiKeys(capApiVersions(API_HANDLERS, { kafkaVersion: '4.1.0' })).map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
    expect(v41.get(8)).toEqual([2, 9]); // OffsetCommit v10 is latestVersionUnstable in 4.1
    expect(v41.get(0)).toEqual([0, 13]);
    expect(capApiVersions(API_HANDLERS, {})).toBe(API_HANDLERS);
  });

  it('applies per-API overrides and refuses bad ones', () => {
    expect([...parseApiVersionOverrides('OffsetCommit=2-8, fetch=12,3=0-5')]).toEqual([[8, [2, 8]], [1, [12, 12]], [3, [0, 5]]]);
    const capped = capApiVersions(API_HANDLERS, { kafkaVersion: '4.0', apiVersions: 'OffsetCommit=2-8,Fetch=4-12' });
    expect(capped.get(8)).toMatchObject({ minVersion: 2, maxVersion: 8 });
    expect(capped.get(1)).toMatchObject({ minVersion: 4, maxVersion: 12 });
    expect(capApiVersions(API_HANDLERS, { apiVersions: { Metadata: [1, 9] } }).get(3)).toMatchObject({ minVersion: 1, maxVersion: 9 });
    expect(() => capApiVersions(API_HANDLERS, { kafkaVersion: '2.8' })).toThrow(ApiVersionsError);
    expect(() => parseApiVersionOverrides('Nope=1-2')).toThrow(/unknown API/);
    expect(() => parseApiVersionOverrides('Fetch=9-2')).toThrow(/above/);
    expect(() => capApiVersions(API_HANDLERS, { apiVersions: 'Fetch=0-12' })).toThrow(/serves Fetch v4-18/);
  });
});
