/**
 * The streams-group topic configuration (src/coordinator/streams/topics/) against Kafka 4.3.1's
 * `InternalTopicManagerTest`, `RepartitionTopicsTest`, `CopartitionedTopicsEnforcerTest` and
 * `ChangelogTopicsTest`, plus topologies whose messages, partition counts and topic orders were
 * taken from Kafka 4.3.1's own `InternalTopicManager.configureTopics` (run from the jars): they
 * depend on Java's `HashMap`/`HashSet` iteration order, which the port reproduces.
 */
import { describe, expect, it } from 'vitest';
import {
  configureTopics,
  IllegalTopologyStateError,
  StreamsInvalidTopologyError,
  summarizeTopics,
} from '../../../src/coordinator/streams/topics/configure-topics.js';
import { setupRepartitionTopics } from '../../../src/coordinator/streams/topics/repartition-topics.js';
import { enforceCopartitioning } from '../../../src/coordinator/streams/topics/copartitioning.js';
import { setupChangelogTopics } from '../../../src/coordinator/streams/topics/changelog-topics.js';
import { TopicConfigurationException } from '../../../src/coordinator/streams/topics/topic-errors.js';
import { StreamsStatus, type ConfiguredTopology } from '../../../src/coordinator/streams/topics/types.js';
import type {
  CopartitionGroup,
  StreamsGroupTopologyValue,
  Subtopology,
  TopicInfo,
} from '../../../src/records/schemas/StreamsGroupTopologyValue.js';
import { TopicError } from '../../../src/topics/topic-error.js';

function topicInfo(name: string, partitions = 0, replicationFactor = 0, configs: Array<[string, string]> = []): TopicInfo {
  return { name, partitions, replicationFactor, topicConfigs: configs.map(([key, value]) => ({ key, value })) };
}

function subtopology(subtopologyId: string, fields: Partial<Omit<Subtopology, 'subtopologyId'>> = {}): Subtopology {
  return {
    subtopologyId,
    sourceTopics: [],
    sourceTopicRegex: [],
    stateChangelogTopics: [],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
    ...fields,
  };
}

function copartitionGroup(sourceTopics: number[], repartitionSourceTopics: number[]): CopartitionGroup {
  return { sourceTopics, sourceTopicRegex: [], repartitionSourceTopics };
}

function topics(counts: Record<string, number>): (topic: string) => number | undefined {
  const map = new Map(Object.entries(counts));
  return (topic) => map.get(topic);
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an exception');
}

/** The topics to create as [name, partitions, replication factor, configs] in the result's order. */
function toCreate(t: ConfiguredTopology): Array<[string, number, number, string[]]> {
  return [...t.internalTopicsToBeCreated.values()].map((c) => [
    c.name,
    c.numPartitions,
    c.replicationFactor,
    c.configs.map((x) => `${x.name}=${x.value}`),
  ]);
}

describe('InternalTopicManager (InternalTopicManagerTest)', () => {
  const testTopology: StreamsGroupTopologyValue = {
    epoch: 3,
    subtopologies: [
      subtopology('subtopology1', {
        sourceTopics: ['source_topic1'],
        repartitionSinkTopics: ['repartition_topic'],
        stateChangelogTopics: [topicInfo('state_changelog_topic1', 0, 0, [['cleanup.policy', 'compact']])],
      }),
      subtopology('subtopology2', {
        sourceTopics: ['source_topic2'],
        repartitionSourceTopics: [topicInfo('repartition_topic', 0, 3)],
        stateChangelogTopics: [topicInfo('state_changelog_topic2')],
        copartitionGroups: [copartitionGroup([0], [0])],
      }),
    ],
  };

  it('reports a missing source topic', () => {
    const t = configureTopics(testTopology, 0n, topics({ source_topic1: 2 }));
    expect(t.subtopologies).toBeNull();
    expect(t.isReady).toBe(false);
    expect(t.internalTopicsToBeCreated.size).toBe(0);
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.MISSING_SOURCE_TOPICS,
      message: 'Source topics source_topic2 are missing.',
    });
  });

  it('configures the subtopologies and lists the internal topics to create', () => {
    const t = configureTopics(
      testTopology,
      7n,
      topics({ source_topic1: 2, source_topic2: 2, state_changelog_topic2: 2 }),
    );
    expect(t.topologyEpoch).toBe(3);
    expect(t.metadataHash).toBe(7n);
    expect(t.internalTopicsToBeCreated.size).toBe(2);
    expect(t.internalTopicsToBeCreated.get('repartition_topic')).toEqual({
      name: 'repartition_topic',
      numPartitions: 2,
      replicationFactor: 3,
      configs: [],
    });
    expect(t.internalTopicsToBeCreated.get('state_changelog_topic1')).toEqual({
      name: 'state_changelog_topic1',
      numPartitions: 2,
      replicationFactor: -1,
      configs: [{ name: 'cleanup.policy', value: 'compact' }],
    });
    expect(t.topicConfigurationError?.status).toBe(StreamsStatus.MISSING_INTERNAL_TOPICS);

    expect([...t.subtopologies!.keys()]).toEqual(['subtopology1', 'subtopology2']);
    const s1 = t.subtopologies!.get('subtopology1')!;
    expect(s1.numberOfTasks).toBe(2);
    expect([...s1.sourceTopics]).toEqual(['source_topic1']);
    expect(s1.repartitionSourceTopics.size).toBe(0);
    expect([...s1.repartitionSinkTopics]).toEqual(['repartition_topic']);
    expect(s1.stateChangelogTopics.get('state_changelog_topic1')).toEqual({
      name: 'state_changelog_topic1',
      numberOfPartitions: 2,
      replicationFactor: null,
      topicConfigs: new Map([['cleanup.policy', 'compact']]),
    });
    const s2 = t.subtopologies!.get('subtopology2')!;
    expect(s2.numberOfTasks).toBe(2);
    expect([...s2.sourceTopics]).toEqual(['source_topic2']);
    expect(s2.repartitionSourceTopics.get('repartition_topic')).toEqual({
      name: 'repartition_topic',
      numberOfPartitions: 2,
      replicationFactor: 3,
      topicConfigs: new Map(),
    });
    expect(s2.repartitionSinkTopics.size).toBe(0);
    expect(s2.stateChangelogTopics.get('state_changelog_topic2')).toEqual({
      name: 'state_changelog_topic2',
      numberOfPartitions: 2,
      replicationFactor: null,
      topicConfigs: new Map(),
    });
  });

  it('summarizes topic lists as Kafka does', () => {
    expect(summarizeTopics([])).toBe('<none>');
    expect(summarizeTopics(['a', 'b', 'c'])).toBe('a, b, c');
    expect(summarizeTopics(['a', 'b', 'c', 'd'])).toBe('a, b, c and 1 additional topics');
  });
});

describe('a word-count topology (as Kafka Streams sends it)', () => {
  const repartitionConfigs: Array<[string, string]> = [
    ['cleanup.policy', 'delete'],
    ['segment.bytes', '52428800'],
    ['retention.ms', '-1'],
    ['message.timestamp.type', 'CreateTime'],
  ];
  const changelogConfigs: Array<[string, string]> = [
    ['cleanup.policy', 'compact'],
    ['message.timestamp.type', 'CreateTime'],
  ];
  const wordCount: StreamsGroupTopologyValue = {
    epoch: 0,
    subtopologies: [
      subtopology('0', { sourceTopics: ['wc-input'], repartitionSinkTopics: ['app-counts-repartition'] }),
      subtopology('1', {
        repartitionSourceTopics: [topicInfo('app-counts-repartition', 0, 0, repartitionConfigs)],
        stateChangelogTopics: [topicInfo('app-counts-changelog', 0, 0, changelogConfigs)],
      }),
    ],
  };

  it('asks for both internal topics with the input topic partition count', () => {
    const t = configureTopics(wordCount, 1n, topics({ 'wc-input': 2 }));
    expect(t.isReady).toBe(false);
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.MISSING_INTERNAL_TOPICS,
      message: 'Internal topics are missing: app-counts-repartition, app-counts-changelog',
    });
    // Configs in the order of Kafka's HashMap of them (not the topology's).
    expect(toCreate(t)).toEqual([
      [
        'app-counts-repartition',
        2,
        -1,
        ['cleanup.policy=delete', 'message.timestamp.type=CreateTime', 'segment.bytes=52428800', 'retention.ms=-1'],
      ],
      ['app-counts-changelog', 2, -1, ['cleanup.policy=compact', 'message.timestamp.type=CreateTime']],
    ]);
    expect(t.subtopologies!.get('0')!.numberOfTasks).toBe(2);
    expect(t.subtopologies!.get('1')!.numberOfTasks).toBe(2);
  });

  it('is ready once the internal topics exist', () => {
    const t = configureTopics(
      wordCount,
      2n,
      topics({ 'wc-input': 2, 'app-counts-repartition': 2, 'app-counts-changelog': 2 }),
    );
    expect(t.isReady).toBe(true);
    expect(t.topicConfigurationError).toBeNull();
    expect(t.internalTopicsToBeCreated.size).toBe(0);
    expect([...t.subtopologies!.keys()]).toEqual(['0', '1']);
    expect(t.subtopologies!.get('1')!.repartitionSourceTopics.get('app-counts-repartition')!.numberOfPartitions).toBe(2);
    expect(t.subtopologies!.get('1')!.stateChangelogTopics.get('app-counts-changelog')!.numberOfPartitions).toBe(2);
  });

  it('refuses an existing internal topic with another partition count', () => {
    const t = configureTopics(wordCount, 3n, topics({ 'wc-input': 2, 'app-counts-changelog': 3 }));
    expect(t.subtopologies).toBeNull();
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
      message: 'Existing topic app-counts-changelog has different number of partitions: expected 2, found 3',
    });
  });
});

describe('configureTopics: messages and orders as Kafka 4.3.1 gives them', () => {
  it('lists at most three missing source topics, sorted', () => {
    const t = configureTopics(
      { epoch: 1, subtopologies: [subtopology('0', { sourceTopics: ['orders', 'clicks', 'users', 'payments', 'events'] })] },
      0n,
      topics({}),
    );
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.MISSING_SOURCE_TOPICS,
      message: 'Source topics clicks, events, orders and 2 additional topics are missing.',
    });
  });

  it('names the missing internal topics in HashMap order', () => {
    const names = ['a', 'b', 'c', 'd', 'e'].map((x) => `app-store-${x}-changelog`);
    const t = configureTopics(
      { epoch: 2, subtopologies: [subtopology('0', { sourceTopics: ['in'], stateChangelogTopics: names.map((n) => topicInfo(n)) })] },
      0n,
      topics({ in: 3 }),
    );
    expect(t.topicConfigurationError?.message).toBe(
      'Internal topics are missing: app-store-c-changelog, app-store-e-changelog, app-store-a-changelog and 2 additional topics',
    );
    expect([...t.internalTopicsToBeCreated.keys()]).toEqual([
      'app-store-c-changelog',
      'app-store-e-changelog',
      'app-store-a-changelog',
      'app-store-d-changelog',
      'app-store-b-changelog',
    ]);
    expect([...t.subtopologies!.get('0')!.stateChangelogTopics.keys()]).toEqual([...t.internalTopicsToBeCreated.keys()]);
  });

  it('derives repartition counts sweeping subtopologies in HashMap order of their ids', () => {
    // "a" is visited before "b": r2 takes a's known source (3) before r1 (5) is decided.
    const t = configureTopics(
      {
        epoch: 0,
        subtopologies: [
          subtopology('c', { repartitionSourceTopics: [topicInfo('r2')] }),
          subtopology('b', { sourceTopics: ['big'], repartitionSinkTopics: ['r1'] }),
          subtopology('a', { sourceTopics: ['small'], repartitionSourceTopics: [topicInfo('r1')], repartitionSinkTopics: ['r2'] }),
        ],
      },
      0n,
      topics({ small: 3, big: 5 }),
    );
    expect(t.topicConfigurationError?.message).toBe('Internal topics are missing: r2, r1');
    expect(toCreate(t)).toEqual([
      ['r2', 3, -1, []],
      ['r1', 5, -1, []],
    ]);
    expect([...t.subtopologies!].map(([id, s]) => [id, s.numberOfTasks])).toEqual([
      ['a', 5],
      ['b', 5],
      ['c', 3],
    ]);
  });

  it('checks a copartition group of repartition topics against all fixed repartition topics', () => {
    // rep-y is not in the group, but its fixed count disagrees with rep-x's; the message lists the group.
    const t = configureTopics(
      {
        epoch: 0,
        subtopologies: [
          subtopology('0', { sourceTopics: ['in'], repartitionSinkTopics: ['rep-x', 'rep-y', 'rep-z'] }),
          subtopology('1', {
            repartitionSourceTopics: [topicInfo('rep-x', 4), topicInfo('rep-z')],
            copartitionGroups: [copartitionGroup([], [0, 1])],
          }),
          subtopology('2', { repartitionSourceTopics: [topicInfo('rep-y', 6)] }),
        ],
      },
      0n,
      topics({ in: 1 }),
    );
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
      message: 'Following topics do not have the same number of partitions: [{rep-x=4, rep-z=1}]',
    });
  });

  const join: StreamsGroupTopologyValue = {
    epoch: 0,
    subtopologies: [
      subtopology('0', {
        sourceTopics: ['left', 'right'],
        repartitionSourceTopics: [topicInfo('rekeyed')],
        stateChangelogTopics: [topicInfo('join-store-changelog')],
        copartitionGroups: [copartitionGroup([0, 1], [0])],
      }),
      subtopology('1', { sourceTopics: ['raw'], repartitionSinkTopics: ['rekeyed'] }),
    ],
  };

  it('refuses copartitioned source topics with different counts', () => {
    const t = configureTopics(join, 0n, topics({ left: 3, right: 2, raw: 8 }));
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
      message: 'Following topics do not have the same number of partitions: [{left=3, right=2}]',
    });
  });

  it('coerces a copartitioned repartition topic to the source topics count', () => {
    const t = configureTopics(join, 0n, topics({ left: 3, right: 3, raw: 8 }));
    expect(t.topicConfigurationError?.message).toBe('Internal topics are missing: join-store-changelog, rekeyed');
    expect(toCreate(t)).toEqual([
      ['join-store-changelog', 3, -1, []],
      ['rekeyed', 3, -1, []],
    ]);
    expect(t.subtopologies!.get('0')!.numberOfTasks).toBe(3);
    expect(t.subtopologies!.get('1')!.numberOfTasks).toBe(8);
  });

  it('refuses a fixed repartition topic copartitioned with a source topic of another count', () => {
    const t = configureTopics(
      {
        epoch: 0,
        subtopologies: [
          subtopology('0', {
            sourceTopics: ['left'],
            repartitionSourceTopics: [topicInfo('repartitioned', 10)],
            copartitionGroups: [copartitionGroup([0], [0])],
          }),
          subtopology('1', { sourceTopics: ['raw'], repartitionSinkTopics: ['repartitioned'] }),
        ],
      },
      0n,
      topics({ left: 2, raw: 1 }),
    );
    expect(t.topicConfigurationError).toEqual({
      status: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
      message:
        "Number of partitions [10] of repartition topic [repartitioned] doesn't match number of partitions [2] of the source topic.",
    });
  });

  it('throws StreamsInvalidTopologyError for a subtopology without sources', () => {
    const e = thrown(() =>
      configureTopics(
        {
          epoch: 0,
          subtopologies: [subtopology('0', { sourceTopics: ['in'] }), subtopology('empty', { stateChangelogTopics: [topicInfo('s-changelog')] })],
        },
        0n,
        topics({ in: 1 }),
      ),
    );
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe('No source topics found for subtopology empty');
  });

  it('throws StreamsInvalidTopologyError for a repartition topic no subtopology writes', () => {
    const e = thrown(() =>
      configureTopics(
        { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: ['in'], repartitionSourceTopics: [topicInfo('orphan')] })] },
        0n,
        topics({ in: 1 }),
      ),
    );
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe(
      'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.',
    );
  });

  it("lets Java's unchecked exceptions escape, with their messages", () => {
    const dup = thrown(() =>
      configureTopics(
        {
          epoch: 0,
          subtopologies: [
            subtopology('0', {
              sourceTopics: ['in'],
              stateChangelogTopics: [topicInfo('store-changelog', 0, 0, [['retention.ms', '1'], ['retention.ms', '2']])],
            }),
          ],
        },
        0n,
        topics({ in: 1 }),
      ),
    );
    expect(dup).toBeInstanceOf(IllegalTopologyStateError);
    expect((dup as IllegalTopologyStateError).javaClass).toBe('IllegalStateException');
    expect((dup as Error).message).toBe('Duplicate key retention.ms (attempted merging values 1 and 2)');

    const index = thrown(() =>
      configureTopics(
        { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: ['in'], copartitionGroups: [copartitionGroup([1], [])] })] },
        0n,
        topics({ in: 1 }),
      ),
    );
    expect((index as IllegalTopologyStateError).javaClass).toBe('IndexOutOfBoundsException');
    expect((index as Error).message).toBe('Index 1 out of bounds for length 1');

    const badName = thrown(() =>
      configureTopics(
        { epoch: 0, subtopologies: [subtopology('0', { sourceTopics: ['in'], stateChangelogTopics: [topicInfo('bad topic')] })] },
        0n,
        topics({ in: 1 }),
      ),
    );
    expect(badName).toBeInstanceOf(TopicError);
  });
});

describe('RepartitionTopics (RepartitionTopicsTest)', () => {
  const sourceCounts = topics({ source1: 3, source2: 3 });
  const repartition1 = topicInfo('repartition1', 4);
  const repartition2 = topicInfo('repartition2', 2);
  const withoutCount = topicInfo('repartitionWithoutPartitionCount');

  it('sets up repartition topics', () => {
    const result = setupRepartitionTopics(
      [
        subtopology('subtopology1', { sourceTopics: ['source1', 'source2'], repartitionSinkTopics: ['repartition1'] }),
        subtopology('subtopology2', { repartitionSourceTopics: [repartition1] }),
      ],
      sourceCounts,
    );
    expect(result).toEqual(new Map([['repartition1', 4]]));
  });

  it('throws IllegalStateException for missing source topics', () => {
    const e = thrown(() =>
      setupRepartitionTopics(
        [
          subtopology('subtopology1', { sourceTopics: ['source1', 'source2'], repartitionSinkTopics: ['repartition1'] }),
          subtopology('subtopology2', { repartitionSourceTopics: [repartition1] }),
        ],
        (t) => (t === 'source1' ? undefined : sourceCounts(t)),
      ),
    );
    expect(e).toBeInstanceOf(IllegalTopologyStateError);
    expect((e as Error).message).toBe('Missing source topics: source1');
  });

  it('throws StreamsInvalidTopologyError for loops', () => {
    const e = thrown(() =>
      setupRepartitionTopics(
        [subtopology('subtopology1', { repartitionSourceTopics: [withoutCount], repartitionSinkTopics: [withoutCount.name] })],
        sourceCounts,
      ),
    );
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe(
      'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.',
    );
  });

  it('throws StreamsInvalidTopologyError for a repartition source never used as sink', () => {
    const e = thrown(() => setupRepartitionTopics([subtopology('subtopology1', { repartitionSourceTopics: [withoutCount] })], sourceCounts));
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe(
      'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.',
    );
  });

  it('takes the count from an upstream external source topic', () => {
    const result = setupRepartitionTopics(
      [
        subtopology('subtopology0', {
          sourceTopics: ['source1'],
          repartitionSinkTopics: ['repartition1', withoutCount.name],
          repartitionSourceTopics: [repartition2],
        }),
        subtopology('subtopologyWithoutPartitionCount', { repartitionSourceTopics: [repartition1, withoutCount] }),
      ],
      sourceCounts,
    );
    expect(result).toEqual(
      new Map([
        ['repartition1', 4],
        ['repartition2', 2],
        [withoutCount.name, 3],
      ]),
    );
  });

  it('takes the count from an upstream repartition source topic', () => {
    const result = setupRepartitionTopics(
      [
        subtopology('subtopology0', {
          sourceTopics: ['source1'],
          repartitionSourceTopics: [repartition1],
          repartitionSinkTopics: [withoutCount.name],
        }),
        subtopology('subtopologyWithoutPartitionCount', {
          repartitionSourceTopics: [withoutCount],
          repartitionSinkTopics: ['repartition1'],
        }),
      ],
      sourceCounts,
    );
    expect(result).toEqual(
      new Map([
        ['repartition1', 4],
        [withoutCount.name, 4],
      ]),
    );
  });

  it('sets up nothing without repartition topics', () => {
    expect(setupRepartitionTopics([subtopology('subtopology0', { sourceTopics: ['source1'] })], sourceCounts).size).toBe(0);
  });
});

describe('CopartitionedTopicsEnforcer (CopartitionedTopicsEnforcerTest)', () => {
  const none = new Set<string>();
  const enforced = (m: Map<string, number>): Array<[string, number]> => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

  it('throws IllegalStateException for a topic without partitions', () => {
    const e = thrown(() => enforceCopartitioning(['source-1'], [], none, topics({})));
    expect(e).toBeInstanceOf(IllegalTopologyStateError);
    expect((e as Error).message).toBe('Number of partitions is not set for topic: source-1');
  });

  it('refuses copartitioned topics with different counts', () => {
    const e = thrown(() => enforceCopartitioning(['source-2', 'source-1'], [], none, topics({ 'source-1': 2, 'source-2': 1 })));
    expect(e).toBeInstanceOf(TopicConfigurationException);
    expect((e as TopicConfigurationException).status).toBe(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
    expect((e as Error).message).toBe('Following topics do not have the same number of partitions: [{source-1=2, source-2=1}]');
  });

  it('enforces copartitioning on repartition topics', () => {
    const result = enforceCopartitioning(
      ['source-1', 'source-2', 'repartitioned-1'],
      [],
      new Set(['repartitioned-1']),
      topics({ 'source-1': 2, 'source-2': 2, 'repartitioned-1': 10 }),
    );
    expect(enforced(result)).toEqual([['repartitioned-1', 2]]);
  });

  it('uses the maximum when all topics are repartition topics', () => {
    const all = ['repartitioned-1', 'repartitioned-2', 'repartitioned-3'];
    const result = enforceCopartitioning(all, [], new Set(all), topics({ 'repartitioned-1': 1, 'repartitioned-2': 15, 'repartitioned-3': 5 }));
    expect(enforced(result)).toEqual([
      ['repartitioned-1', 15],
      ['repartitioned-2', 15],
      ['repartitioned-3', 15],
    ]);
  });

  it('refuses fixed repartition topics with different counts', () => {
    const fixed = ['repartitioned-1', 'repartitioned-2'];
    const e = thrown(() => enforceCopartitioning(fixed, fixed, none, topics({ 'repartitioned-1': 10, 'repartitioned-2': 5 })));
    expect((e as TopicConfigurationException).status).toBe(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
    expect((e as Error).message).toBe(
      'Following topics do not have the same number of partitions: [{repartitioned-1=10, repartitioned-2=5}]',
    );
  });

  it('keeps valid fixed counts', () => {
    const all = ['repartitioned-1', 'repartitioned-2'];
    const result = enforceCopartitioning(all, [], new Set(all), topics({ 'repartitioned-1': 10, 'repartitioned-2': 10 }));
    expect(enforced(result)).toEqual([
      ['repartitioned-1', 10],
      ['repartitioned-2', 10],
    ]);
  });

  it('refuses a fixed repartition topic not matching the source topic', () => {
    const e = thrown(() =>
      enforceCopartitioning(['repartitioned-1', 'source-1'], ['repartitioned-1'], none, topics({ 'repartitioned-1': 10, 'source-1': 2 })),
    );
    expect((e as TopicConfigurationException).status).toBe(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
    expect((e as Error).message).toBe(
      "Number of partitions [10] of repartition topic [repartitioned-1] doesn't match number of partitions [2] of the source topic.",
    );
  });

  it('keeps a flexible repartition topic matching the source topic', () => {
    const result = enforceCopartitioning(
      ['repartitioned-1', 'source-1'],
      [],
      new Set(['repartitioned-1']),
      topics({ 'repartitioned-1': 2, 'source-1': 2 }),
    );
    expect(enforced(result)).toEqual([['repartitioned-1', 2]]);
  });

  it('takes the count of the fixed repartition topics for the flexible ones', () => {
    const result = enforceCopartitioning(
      ['repartitioned-1', 'repartitioned-2', 'repartitioned-3'],
      ['repartitioned-1', 'repartitioned-3'],
      new Set(['repartitioned-2']),
      topics({ 'repartitioned-1': 2, 'repartitioned-2': 5, 'repartitioned-3': 2 }),
    );
    expect(enforced(result)).toEqual([
      ['repartitioned-1', 2],
      ['repartitioned-2', 2],
      ['repartitioned-3', 2],
    ]);
  });

  it('refuses a group whose repartition topics all have no partitions', () => {
    const e = thrown(() => enforceCopartitioning(['r-1'], [], new Set(['r-1']), topics({ 'r-1': 0 })));
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe('All topics in the copartition group had undefined partition number: [r-1]');
  });

  it('ignores an empty group', () => {
    expect(enforceCopartitioning([], ['x'], none, topics({})).size).toBe(0);
  });
});

describe('ChangelogTopics (ChangelogTopicsTest)', () => {
  const three = (): number => 3;
  const repartitionInfo = topicInfo('repartition', 0, 0, [['config1', 'val1']]);

  it('fails without source and repartition source topics', () => {
    const e = thrown(() => setupChangelogTopics([subtopology('SUBTOPOLOGY_NO_SOURCE', { repartitionSinkTopics: ['sink'] })], three));
    expect(e).toBeInstanceOf(StreamsInvalidTopologyError);
    expect((e as Error).message).toBe('No source topics found for subtopology SUBTOPOLOGY_NO_SOURCE');
  });

  it('does not fail with only repartition source topics', () => {
    const result = setupChangelogTopics(
      [subtopology('SUBTOPOLOGY_NO_SOURCE', { repartitionSinkTopics: ['sink'], repartitionSourceTopics: [repartitionInfo] })],
      three,
    );
    expect(result.size).toBe(0);
  });

  it('does not fail with only source topics', () => {
    const result = setupChangelogTopics([subtopology('SUBTOPOLOGY_NO_SOURCE', { sourceTopics: ['source'], repartitionSinkTopics: ['sink'] })], three);
    expect(result.size).toBe(0);
  });

  it('has no changelogs for stateless tasks', () => {
    const result = setupChangelogTopics(
      [subtopology('SUBTOPOLOGY_STATELESS', { sourceTopics: ['source'], repartitionSinkTopics: ['sink'], repartitionSourceTopics: [repartitionInfo] })],
      three,
    );
    expect(result).toEqual(new Map());
  });

  it('contains non-source-based changelogs', () => {
    const result = setupChangelogTopics(
      [
        subtopology('SUBTOPOLOGY_STATEFUL', {
          sourceTopics: ['source'],
          repartitionSinkTopics: ['sink'],
          repartitionSourceTopics: [repartitionInfo],
          stateChangelogTopics: [topicInfo('changelog1', 0, 0, [['config1', 'val1']])],
        }),
      ],
      three,
    );
    expect(result).toEqual(new Map([['changelog1', 3]]));
  });

  it('contains source-based changelogs', () => {
    const result = setupChangelogTopics(
      [
        subtopology('SUBTOPOLOGY_SOURCE_CHANGELOG', {
          sourceTopics: ['source'],
          repartitionSinkTopics: ['sink'],
          repartitionSourceTopics: [repartitionInfo],
          stateChangelogTopics: [topicInfo('source', 0, 0, [['config1', 'val1']])],
        }),
      ],
      three,
    );
    expect(result).toEqual(new Map([['source', 3]]));
  });

  it('contains both kinds of changelogs', () => {
    const result = setupChangelogTopics(
      [
        subtopology('SUBTOPOLOGY_BOTH', {
          sourceTopics: ['source'],
          repartitionSinkTopics: ['sink'],
          repartitionSourceTopics: [repartitionInfo],
          stateChangelogTopics: [topicInfo('source'), topicInfo('changelog1')],
        }),
      ],
      three,
    );
    expect(result).toEqual(
      new Map([
        ['source', 3],
        ['changelog1', 3],
      ]),
    );
  });

  it('takes the largest source count of the subtopology', () => {
    const result = setupChangelogTopics(
      [subtopology('0', { sourceTopics: ['a', 'b'], repartitionSourceTopics: [topicInfo('r')], stateChangelogTopics: [topicInfo('c')] })],
      topics({ a: 2, b: 6, r: 4 }),
    );
    expect(result).toEqual(new Map([['c', 6]]));
  });
});
