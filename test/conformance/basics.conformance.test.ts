/**
 * Conformance: ApiVersions (every version), Metadata (existing and missing topics),
 * FindCoordinator v0-v6 and ListOffsets (earliest, latest, by timestamp, max timestamp).
 */
import { ADVERTISED_FEATURES } from '../../src/protocol/features.js';
import { describe } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

/** The API keys our server serves: ApiVersions answers are compared on these. */
const SERVED = new Set(API_HANDLERS.keys());
const FEATURES = new Set(ADVERTISED_FEATURES.map((f) => f.name));

describe('ApiVersions', () => {
  for (const version of [0, 1, 2, 3, 4]) {
    scenario(`v${version}: advertised ranges of the APIs we serve match Kafka's`, async (s) => {
      const body = { clientSoftwareName: 'kmc-conformance', clientSoftwareVersion: '1.0' };
      const r = await s.send(18, version, body);
      s.record('ApiVersions', {
        errorCode: r.errorCode,
        // Kafka serves more APIs than we do; ours must be a subset with the same ranges.
        apiKeys: r.apiKeys.filter((k) => SERVED.has(k.apiKey)).sort((a, b) => a.apiKey - b.apiKey),
        served: [...SERVED].filter((k) => r.apiKeys.some((a) => a.apiKey === k)).length,
        // The features we advertise (src/protocol/features.ts) as Kafka advertises them.
        supportedFeatures: (r.supportedFeatures ?? []).filter((f) => FEATURES.has(f.name)),
        finalizedFeatures: (r.finalizedFeatures ?? []).filter((f) => FEATURES.has(f.name)),
      });
    });
  }
});

function metadataBody(version: number, topics: string[] | null, allowAutoTopicCreation = false) {
  return {
    topics: topics === null ? null : topics.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  } as never;
}

describe('Metadata', () => {
  for (const version of [1, 4, 7, 9, 10, 12, 13]) {
    scenario(`v${version}: an existing topic with 3 partitions and a missing topic (no auto-creation)`, async (s) => {
      const topic = s.name('md-topic');
      await s.createTopic(topic, 3);
      const missing = s.name('md-missing');
      const allow = version >= 4 ? false : true;
      if (version >= 4) {
        const r = await s.send(3, version, metadataBody(version, [topic, missing], allow));
        s.record('Metadata existing+missing', { ...r, topics: [...r.topics].sort((a, b) => String(a.name).localeCompare(String(b.name))) });
      } else {
        s.record('Metadata existing', await s.send(3, version, metadataBody(version, [topic])));
      }
    });
  }

  for (const version of [8, 10, 11, 12, 13]) {
    // Topic operations are answered from v8 on (v11 dropped only the cluster's); an illegal name is
    // INVALID_TOPIC_EXCEPTION without auto-creation too (adversarial trial, session 31).
    scenario(`v${version}: topic authorized operations, an illegal and an empty name (no auto-creation)`, async (s) => {
      const topic = s.name('md-ops');
      await s.createTopic(topic, 1);
      const r = await s.send(3, version, { ...(metadataBody(version, [topic, s.name('md-ops-missing'), 'bad name!', '']) as object), includeTopicAuthorizedOperations: true } as never);
      s.record('Metadata with topic operations', r.topics);
      if (version >= 12) {
        const byId = await s.send(3, version, { topics: [{ topicId: 'AQIDBAUGBwgJCgsMDQ4PEA', name: null }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true } as never);
        s.record('Metadata by an unknown id with topic operations', byId.topics);
      }
    });
  }

  for (const version of [10, 11]) {
    // KafkaApis refuses both with InvalidRequestException before looking anything up.
    scenario(`v${version}: a topic with a null name, and one by id (neither before v12)`, async (s) => {
      const topic = s.name('md-null');
      const id = await s.createTopic(topic, 1);
      const body = (topics: Array<{ topicId: string; name: string | null }>) => ({ topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      await s.call('Metadata null name', 3, version, body([{ topicId: ZERO_UUID, name: null }]));
      await s.call('Metadata by id', 3, version, body([{ topicId: id, name: topic }]));
      await s.call('Metadata by id, null name, and a name', 3, version, body([{ topicId: id, name: null }, { topicId: ZERO_UUID, name: topic }]));
    });
  }

  for (const version of [1, 9, 12]) {
    scenario(`v${version}: all topics list __consumer_offsets as internal`, async (s) => {
      const r = await s.send(3, version, metadataBody(version, null));
      s.record('__consumer_offsets in all topics', r.topics.filter((t) => t.name === '__consumer_offsets'));
    });
  }

  scenario('v12: a topic requested by id', async (s) => {
    const topic = s.name('md-byid');
    const id = await s.createTopic(topic, 1);
    await s.call('Metadata by id', 3, 12, { topics: [{ topicId: id, name: null }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  });

  scenario('v12: a topic requested by id with the empty name the Java client sends, and an unknown id', async (s) => {
    const topic = s.name('md-byid-empty');
    const id = await s.createTopic(topic, 2);
    const other = await s.createTopic(s.name('md-byid-empty-2'), 1);
    await s.call('Metadata by two ids, name ""', 3, 12, { topics: [{ topicId: id, name: '' }, { topicId: other, name: '' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    await s.call('Metadata by unknown id, name ""', 3, 12, { topics: [{ topicId: 'AQIDBAUGBwgJCgsMDQ4PEA', name: '' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  });
});

describe('FindCoordinator', () => {
  for (const version of [0, 1, 2, 3]) {
    scenario(`v${version}: group coordinator`, async (s) => {
      await s.call('FindCoordinator group', 10, version, { key: s.name('fc-group'), keyType: 0, coordinatorKeys: [] });
    });
  }
  for (const version of [4, 5, 6]) {
    scenario(`v${version}: batched group keys`, async (s) => {
      await s.call('FindCoordinator groups', 10, version, { key: '', keyType: 0, coordinatorKeys: [s.name('fc-a'), s.name('fc-b')] });
    });
  }
  for (const version of [1, 3, 4, 6]) {
    scenario(`v${version}: an empty key, of a group and of a transactional id`, async (s) => {
      const batched = version >= 4;
      const ask = (keyType: number, keys: string[]) => ({ key: batched ? '' : keys[0]!, keyType, coordinatorKeys: batched ? keys : [] });
      // Both brokers create __transaction_state on the first lookup of a transactional id: waited for, not recorded.
      const deadline = Date.now() + 30_000;
      while ((await s.send(10, 3, ask(1, [s.name('fc-txn')]))).errorCode !== 0) {
        if (Date.now() > deadline) throw new Error(`${s.target}: no transaction coordinator`);
        await sleep(200);
      }
      await s.call('group, empty key', 10, version, ask(0, batched ? ['', s.name('fc-g')] : ['']));
      await s.call('transactional id, empty key', 10, version, ask(1, batched ? ['', s.name('fc-txn')] : ['']));
    });
  }
});

const T0 = 1_700_000_000_000n;

async function listOffsets(s: Session, label: string, version: number, topic: string, timestamps: bigint[]) {
  const r = await s.send(2, version, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 5000,
    topics: [{ name: topic, partitions: timestamps.map((timestamp, i) => ({ partitionIndex: i, currentLeaderEpoch: -1, timestamp })) }],
  });
  s.record(label, r);
}

describe('ListOffsets', () => {
  for (const version of [1, 4, 7, 8, 9, 10, 11]) {
    scenario(`v${version}: earliest, latest, by timestamp (past, middle, future), max timestamp`, async (s) => {
      const topic = s.name('lo');
      const queries: bigint[] = [-2n, -1n, T0 - 5n, T0 + 15n, T0 + 1_000_000n];
      if (version >= 7) queries.push(-3n);
      if (version >= 8) queries.push(-4n);
      if (version >= 9) queries.push(-5n);
      await s.createTopic(topic, queries.length);
      // Every partition holds the same three records: timestamps T0, T0+30, T0+20 (max in the middle).
      for (let p = 0; p < queries.length; p++) {
        await s.produce(topic, p, [
          { value: 'a', timestamp: T0 },
          { value: 'b', timestamp: T0 + 30n },
          { value: 'c', timestamp: T0 + 20n },
        ]);
      }
      await listOffsets(s, 'ListOffsets', version, topic, queries);
    });
  }

  scenario('v9: an empty partition and an unknown partition', async (s) => {
    const topic = s.name('lo-empty');
    await s.createTopic(topic, 3);
    await listOffsets(s, 'ListOffsets empty', 9, topic, [-2n, -1n, -3n, T0]);
  });
});
