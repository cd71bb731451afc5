/**
 * Conformance: topic, broker and group configs (issue 15): CreateTopics with configs,
 * IncrementalAlterConfigs and AlterConfigs round trips through DescribeConfigs, and their errors,
 * with Kafka's error messages compared word for word. Broker-level changes are validate-only or
 * undone within their scenario (the oracle is shared by every scenario of the run).
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

const TOPIC = 2;
const BROKER = 4;
const GROUP = 32;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

type Op = [name: string, op: number, value: string | null];

const incremental = (resources: Array<[type: number, name: string, ops: Op[]]>, validateOnly = false) => ({
  resources: resources.map(([resourceType, resourceName, ops]) => ({ resourceType, resourceName, configs: ops.map(([name, configOperation, value]) => ({ name, configOperation, value })) })),
  validateOnly,
});

const legacy = (resources: Array<[type: number, name: string, configs: Array<[string, string | null]>]>, validateOnly = false) => ({
  resources: resources.map(([resourceType, resourceName, configs]) => ({ resourceType, resourceName, configs: configs.map(([name, value]) => ({ name, value })) })),
  validateOnly,
});

const describeBody = (type: number, name: string, keys: string[] | null) => ({
  resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }],
  includeSynonyms: true,
  includeDocumentation: false,
});

/** Waits (not recorded) until DescribeConfigs shows `key` = `value` (null: unset): Kafka's brokers apply config changes a moment after the controller answers. */
async function waitConfig(s: Session, type: number, name: string, key: string, value: string | null, source?: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await s.send(32, 4, describeBody(type, name, [key]));
    const entry = r.results[0]?.configs.find((c) => c.name === key);
    if ((entry?.value ?? null) === value && (source === undefined || entry?.configSource === source)) return;
    if (Date.now() > deadline) throw new Error(`${s.target}: ${name} ${key} is ${entry?.value}, not ${value}`);
    await sleep(50);
  }
}

const TOPIC_KEYS = ['retention.ms', 'max.message.bytes', 'cleanup.policy', 'segment.bytes', 'segment.ms', 'min.insync.replicas', 'message.timestamp.type', 'retention.bytes'];

describe('CreateTopics with configs', () => {
  for (const version of [5, 7]) {
    scenario(`v${version}: invalid configs refused, valid ones answered and described`, async (s) => {
      const topic = (n: string) => s.name(`ctc-${n}`);
      const t = (name: string, configs: Array<[string, string | null]>) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: configs.map(([n, value]) => ({ name: n, value })) });
      const r = await s.send(19, version, {
        topics: [
          t(topic('abc'), [['retention.ms', 'abc']]),
          t(topic('unknown'), [['foo', '1']]),
          t(topic('null'), [['retention.ms', null]]),
          t(topic('small'), [['segment.bytes', '1000']]),
          t(topic('policy'), [['cleanup.policy', 'bad']]),
          t(topic('ok'), [['retention.ms', '5000'], ['cleanup.policy', 'compact,delete'], ['max.message.bytes', '51200']]),
        ],
        timeoutMs: 10_000,
        validateOnly: false,
      });
      s.record('CreateTopics', { ...r, topics: r.topics.map((x) => ({ ...x, topicId: '<id>' })) });
      await waitConfig(s, TOPIC, topic('ok'), 'retention.ms', '5000');
      await s.call('DescribeConfigs', 32, 4, describeBody(TOPIC, topic('ok'), TOPIC_KEYS));
    }, { exactMessages: true });
  }
});

describe('IncrementalAlterConfigs on topics', () => {
  for (const version of [0, 1]) {
    scenario(`v${version}: SET, APPEND, SUBTRACT, DELETE, validate-only, and the errors`, async (s) => {
      const topic = s.name('iac');
      await s.createTopic(topic, 1);
      await s.call('validate only', 44, version, incremental([[TOPIC, topic, [['retention.ms', SET, '3600000']]]], true));
      await s.call('DescribeConfigs after validate-only', 32, 4, describeBody(TOPIC, topic, ['retention.ms']));
      await s.call('SET three', 44, version, incremental([[TOPIC, topic, [['retention.ms', SET, '3600000'], ['max.message.bytes', SET, '51200'], ['cleanup.policy', SET, 'compact']]]]));
      await waitConfig(s, TOPIC, topic, 'cleanup.policy', 'compact');
      await s.call('DescribeConfigs after SET', 32, 4, describeBody(TOPIC, topic, TOPIC_KEYS));
      await s.call('APPEND', 44, version, incremental([[TOPIC, topic, [['cleanup.policy', APPEND, 'delete']]]]));
      await waitConfig(s, TOPIC, topic, 'cleanup.policy', 'compact,delete');
      await s.call('SUBTRACT and DELETE', 44, version, incremental([[TOPIC, topic, [['cleanup.policy', SUBTRACT, 'compact'], ['retention.ms', DELETE, null], ['foo', DELETE, null]]]]));
      await waitConfig(s, TOPIC, topic, 'retention.ms', '604800000');
      await s.call('DescribeConfigs after DELETE', 32, 4, describeBody(TOPIC, topic, TOPIC_KEYS));
      const fails: Array<[string, Op[]]> = [
        ['unknown name', [['foo', SET, '1']]],
        ['not a number', [['retention.ms', SET, 'abc']]],
        ['below the minimum', [['segment.bytes', SET, '1000']]],
        ['not one of the values', [['message.timestamp.type', SET, 'Never']]],
        ['not a listed policy', [['cleanup.policy', SET, 'bad']]],
        ['APPEND to a non-list', [['retention.ms', APPEND, '5']]],
        ['SET without a value', [['retention.ms', SET, null]]],
        ['a name twice', [['retention.ms', SET, '5'], ['retention.ms', SET, '6']]],
        ['compaction lags in conflict', [['min.compaction.lag.ms', SET, '100'], ['max.compaction.lag.ms', SET, '10']]],
        ['gzip level', [['compression.gzip.level', SET, '12']]],
      ];
      for (const [label, ops] of fails) await s.call(label, 44, version, incremental([[TOPIC, topic, ops]]));
      await s.call('unknown topic, a resource twice', 44, version, incremental([[TOPIC, s.name('iac-missing'), [['retention.ms', SET, '5']]], [TOPIC, topic, [['retention.ms', SET, '5']]], [TOPIC, topic, [['retention.ms', SET, '6']]]]));
      await s.call('unknown resource type', 44, version, incremental([[99, 'x', [['a', SET, '1']]]]));
      await s.call('an operation id Kafka does not know', 44, version, incremental([[TOPIC, topic, [['retention.ms', 9, '1']]]]));
    }, { exactMessages: true });
  }
});

describe('AlterConfigs on topics', () => {
  for (const version of [0, 2]) {
    scenario(`v${version}: the configs given replace the topic's configs; errors`, async (s) => {
      const topic = s.name('ac');
      await s.createTopic(topic, 1);
      await s.call('AlterConfigs two', 33, version, legacy([[TOPIC, topic, [['retention.ms', '12345'], ['segment.ms', '600000']]]]));
      await waitConfig(s, TOPIC, topic, 'segment.ms', '600000');
      await s.call('AlterConfigs one', 33, version, legacy([[TOPIC, topic, [['max.message.bytes', '2000']]]]));
      await waitConfig(s, TOPIC, topic, 'segment.ms', '604800000');
      await s.call('DescribeConfigs', 32, 4, describeBody(TOPIC, topic, TOPIC_KEYS));
      await s.call('unknown name', 33, version, legacy([[TOPIC, topic, [['foo', '1']]]]));
      await s.call('null value', 33, version, legacy([[TOPIC, topic, [['retention.ms', null]]]]));
      await s.call('APPEND to a policy left at its default', 44, 1, incremental([[TOPIC, topic, [['cleanup.policy', APPEND, 'compact']]]]));
      await waitConfig(s, TOPIC, topic, 'cleanup.policy', 'delete,compact');
      await s.call('validate only', 33, version, legacy([[TOPIC, topic, [['retention.ms', '1']]]], true));
      await s.call('DescribeConfigs after validate-only', 32, 4, describeBody(TOPIC, topic, ['retention.ms', 'max.message.bytes']));
    }, { exactMessages: true });
  }
});

describe('Broker configs', () => {
  scenario('IncrementalAlterConfigs v1: configs Kafka cannot change dynamically, types, broker ids, the default level (validate-only)', async (s) => {
    const fails: Array<[string, string, Op[]]> = [
      ['offsets.retention.minutes', '1', [['offsets.retention.minutes', SET, '1']]],
      ['three at once', '1', [['log.retention.ms', SET, '100000'], ['offsets.retention.minutes', SET, '1'], ['num.partitions', SET, '3']]],
      ['log.retention.hours', '', [['log.retention.hours', SET, '1']]],
      ['not a number', '', [['message.max.bytes', SET, 'abc']]],
      ['per broker at the default level', '', [['listeners', SET, 'PLAINTEXT://:1']]],
      ['another broker', '7', [['log.retention.ms', SET, '5000']]],
      ['not an integer', 'abc', [['log.retention.ms', SET, '5000']]],
      ['a dynamic one, validate only', '1', [['log.retention.ms', SET, '5000'], ['message.max.bytes', SET, '2000000']]],
      ['APPEND to a non-list on the broker', '1', [['log.retention.ms', APPEND, '5']]],
      ['SUBTRACT from a non-list at the default level', '', [['message.max.bytes', SUBTRACT, '5']]],
    ];
    for (const [label, name, ops] of fails) await s.call(label, 44, 1, incremental([[BROKER, name, ops]], true));
    await s.call('DescribeConfigs broker', 32, 4, describeBody(BROKER, '1', ['log.retention.ms', 'log.retention.hours', 'message.max.bytes', 'min.insync.replicas', 'offsets.retention.minutes', 'broker.id', 'node.id', 'num.partitions']));
    await s.call('DescribeConfigs cluster default', 32, 4, describeBody(BROKER, '', null));
  }, { exactMessages: true });

  scenario('a dynamic broker config and a cluster default set, seen by the broker and by a topic, then deleted', async (s) => {
    const topic = s.name('bc');
    await s.createTopic(topic, 1);
    await s.call('SET log.retention.ms on the broker', 44, 1, incremental([[BROKER, '1', [['log.retention.ms', SET, '100000']]]]));
    await s.call('SET message.max.bytes cluster-wide', 44, 1, incremental([[BROKER, '', [['message.max.bytes', SET, '2000000']]]]));
    await waitConfig(s, TOPIC, topic, 'retention.ms', '100000');
    await waitConfig(s, TOPIC, topic, 'max.message.bytes', '2000000');
    await s.call('DescribeConfigs broker', 32, 4, describeBody(BROKER, '1', ['log.retention.ms', 'log.retention.hours', 'message.max.bytes']));
    await s.call('DescribeConfigs topic', 32, 4, describeBody(TOPIC, topic, ['retention.ms', 'max.message.bytes']));
    await s.call('DELETE both', 44, 1, incremental([[BROKER, '1', [['log.retention.ms', DELETE, null]]], [BROKER, '', [['message.max.bytes', DELETE, null]]]]));
    await waitConfig(s, TOPIC, topic, 'retention.ms', '604800000');
    await waitConfig(s, TOPIC, topic, 'max.message.bytes', '1048588');
    await s.call('DescribeConfigs topic after', 32, 4, describeBody(TOPIC, topic, ['retention.ms', 'max.message.bytes']));
  }, { exactMessages: true });
});

describe('Group configs', () => {
  for (const version of [0, 1]) {
    scenario(`IncrementalAlterConfigs v${version}: set, described with the broker synonyms, the bounds`, async (s) => {
      const group = s.name('gc');
      await s.call('SET', 44, version, incremental([[GROUP, group, [['consumer.session.timeout.ms', SET, '10000'], ['consumer.heartbeat.interval.ms', SET, '1000']]]]));
      await waitConfig(s, GROUP, group, 'consumer.session.timeout.ms', '10000');
      await s.call('DescribeConfigs', 32, 4, describeBody(GROUP, group, ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms', 'consumer.assignment.interval.ms', 'share.session.timeout.ms']));
      const fails: Array<[string, Op[]]> = [
        ['unknown name', [['foo', SET, '1']]],
        ['below the minimum session timeout', [['consumer.session.timeout.ms', SET, '100']]],
        ['above the maximum session timeout', [['consumer.session.timeout.ms', SET, '999999']]],
        ['heartbeat above the session timeout', [['consumer.heartbeat.interval.ms', SET, '20000']]],
        ['not a number', [['consumer.session.timeout.ms', SET, 'abc']]],
      ];
      for (const [label, ops] of fails) await s.call(label, 44, version, incremental([[GROUP, group, ops]]));
      await s.call('DELETE', 44, version, incremental([[GROUP, group, [['consumer.session.timeout.ms', DELETE, null], ['consumer.heartbeat.interval.ms', DELETE, null]]]]));
      await waitConfig(s, GROUP, group, 'consumer.session.timeout.ms', '6000');
      await s.call('DescribeConfigs after', 32, 4, describeBody(GROUP, group, ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms']));
    }, { exactMessages: true });
  }
});
