/**
 * Conformance: config values as Kafka 4.3.1 parses and checks them (issue 15 fixes): DOUBLE values
 * in Java's `Double.parseDouble` forms (NaN, `0.5d`, `0x1p-2`), Range messages naming the parsed
 * value, dynamic broker configs checked by Kafka's validators and `KafkaConfig`'s requirements,
 * `remote.storage.enable` without tiered storage, the order values are checked in, and the
 * `share.auto.offset.reset` group config. Messages compared word for word; broker changes are
 * validate-only.
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

const TOPIC = 2;
const BROKER = 4;
const GROUP = 32;
const SET = 0;

const incremental = (type: number, name: string, configs: Array<[string, string]>, validateOnly: boolean) => ({
  resources: [{ resourceType: type, resourceName: name, configs: configs.map(([n, value]) => ({ name: n, configOperation: SET, value })) }],
  validateOnly,
});

const describeBody = (type: number, name: string, keys: string[]) => ({
  resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }],
  includeSynonyms: false,
  includeDocumentation: false,
});

/** Waits (not recorded) until the topic describes `key` as `value` (Kafka's brokers apply changes a moment after the answer). */
async function waitTopicConfig(s: Session, topic: string, key: string, value: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await s.send(32, 4, describeBody(TOPIC, topic, [key]));
    if (r.results[0]?.configs.find((c) => c.name === key)?.value === value) return;
    if (Date.now() > deadline) throw new Error(`${s.target}: ${topic} ${key} is not ${value}`);
    await sleep(50);
  }
}

describe('DOUBLE config values', () => {
  scenario('min.cleanable.dirty.ratio in Java double forms: validate-only, set and described (NaN passes the range)', async (s) => {
    const topic = s.name('dbl');
    await s.createTopic(topic, 1);
    for (const value of ['NaN', '-NaN', '0.5d', '0.5f', '0x1p-2', '0X1.8P-1', ' .5 ', '1.', '1e0', '-0.0', 'Infinity', '5', '-0.5d', 'nan', '1e', '0x1', 'NaNd']) {
      await s.call(`validate ${JSON.stringify(value)}`, 44, 1, incremental(TOPIC, topic, [['min.cleanable.dirty.ratio', value]], true));
    }
    for (const [value, described] of [['NaN', 'NaN'], ['0x1p-2', '0.25'], ['0.5d', '0.5']] as const) {
      await s.call(`set ${value}`, 44, 1, incremental(TOPIC, topic, [['min.cleanable.dirty.ratio', value]], false));
      await waitTopicConfig(s, topic, 'min.cleanable.dirty.ratio', described);
      await s.call(`described after ${value}`, 32, 4, describeBody(TOPIC, topic, ['min.cleanable.dirty.ratio']));
    }
    // The topic still takes records and describes fully with a NaN ratio.
    await s.call('set NaN again', 44, 1, incremental(TOPIC, topic, [['min.cleanable.dirty.ratio', 'NaN']], false));
    await waitTopicConfig(s, topic, 'min.cleanable.dirty.ratio', 'NaN');
    await s.produce(topic, 0, [{ value: 'v', timestamp: 1_700_000_000_000n }]);
    await s.call('ListOffsets latest', 2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });
  }, { exactMessages: true });
});

describe('Topic config checks', () => {
  scenario('values checked in LogConfig order; parsed values in Range messages; remote.storage.enable refused after the values', async (s) => {
    const topic = s.name('tcc');
    await s.createTopic(topic, 1);
    const cases: Array<[string, Array<[string, string]>]> = [
      ['two bad values', [['min.cleanable.dirty.ratio', '5'], ['max.message.bytes', '-1']]],
      ['signed zero-padded int', [['max.message.bytes', '-05']]],
      ['padded string', [['message.timestamp.type', ' bad ']]],
      ['duplicate policies', [['cleanup.policy', 'compact,compact']]],
      ['empty policy item', [['cleanup.policy', 'compact,,delete']]],
      ['remote storage', [['remote.storage.enable', 'TRUE']]],
      ['remote storage off', [['remote.storage.enable', 'false']]],
      ['remote storage and a bad value', [['remote.storage.enable', 'true'], ['max.message.bytes', '-1']]],
    ];
    for (const [label, configs] of cases) await s.call(label, 44, 1, incremental(TOPIC, topic, configs, true));
    const r = await s.send(19, 7, {
      topics: [{ name: s.name('tcc-remote'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'remote.storage.enable', value: 'true' }] }],
      timeoutMs: 10_000,
      validateOnly: true,
    });
    s.record('CreateTopics remote.storage.enable=true', r.topics.map((t) => [t.errorCode, t.errorMessage]));
  }, { exactMessages: true });
});

describe('Dynamic broker config checks', () => {
  for (const name of ['', '1']) {
    scenario(`IncrementalAlterConfigs BROKER "${name}": Kafka's validators and requirements (validate-only)`, async (s) => {
      const cases: Array<Array<[string, string]>> = [
        [['message.max.bytes', '-5']],
        [['log.segment.bytes', '0']],
        [['log.cleanup.policy', 'foo']],
        [['log.cleanup.policy', 'Compact']],
        [['log.cleanup.policy', 'compact,compact']],
        [['log.cleanup.policy', '']],
        [['min.insync.replicas', '0']],
        [['log.cleaner.min.cleanable.ratio', '5']],
        [['log.cleaner.min.cleanable.ratio', 'NaN']],
        [['log.message.timestamp.type', 'bad']],
        [['log.message.timestamp.type', 'LogAppendTime']],
        [['compression.gzip.level', '12']],
        [['log.roll.ms', '-1']],
        [['log.roll.ms', '1']],
        [['log.cleaner.threads', '0']],
        [['max.connections.per.ip.overrides', '127.0.0.1:many']],
        [['max.connections.per.ip.overrides', 'bad/host:5']],
        [['max.connections.per.ip.overrides', 'localhost:+3,127.0.0.1:7']],
        [['log.local.retention.ms', '-3']],
        [['unclean.leader.election.enable', 'TRUE']],
        [['log.cleaner.min.cleanable.ratio', '5'], ['message.max.bytes', '-1']],
        [['foo.bar', 'x'], ['message.max.bytes', '-1']],
        // A per-broker config (refused at the cluster default level) beside bad values: which check comes first.
        [['sasl.login.refresh.buffer.seconds', 'abc']],
        [['sasl.login.refresh.buffer.seconds', '300'], ['log.retention.ms', 'x']],
        [['sasl.login.refresh.buffer.seconds', '300'], ['message.max.bytes', '-5']],
        [['sasl.login.refresh.buffer.seconds', '300'], ['log.cleaner.threads', '0']],
      ];
      for (const configs of cases) await s.call(configs.map(([n, v]) => `${n}=${v}`).join(' '), 44, 1, incremental(BROKER, name, configs, true));
      const legacy = await s.send(33, 2, { resources: [{ resourceType: BROKER, resourceName: name, configs: [{ name: 'log.cleaner.min.cleanable.ratio', value: '5' }] }], validateOnly: true });
      s.record('AlterConfigs ratio 5', legacy.responses.map((r) => [r.errorCode, r.errorMessage]));
    }, { exactMessages: true });
  }
});

describe('Group config checks', () => {
  scenario('share.auto.offset.reset: earliest, latest or by_duration with a Java Duration that is not negative (validate-only)', async (s) => {
    const group = s.name('gcc');
    for (const value of ['earliest', ' latest ', 'EARLIEST', 'none', 'sideways', 'by_duration:PT1H', 'by_duration:pt1h', 'by_duration:P1D', 'by_duration:PT1.5S', 'by_duration:-PT1H', 'by_duration:PT-1H', 'BY_DURATION:PT1H', 'by_duration:PT', 'by_duration:P1DT', 'by_duration:garbage']) {
      await s.call(`share.auto.offset.reset=${value}`, 44, 1, incremental(GROUP, group, [['share.auto.offset.reset', value]], true));
    }
  }, { exactMessages: true });
});

describe('Throttled replica lists', () => {
  scenario('leader/follower.replication.throttled.replicas: the message names the parsed list and the key (validate-only)', async (s) => {
    const topic = s.name('thr');
    await s.createTopic(topic, 1);
    for (const value of ['*', '0:1,1:1', '1', '1 ', 'a, b', '1e3', '0:1,x']) {
      for (const key of ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas']) {
        await s.call(`${key}=${JSON.stringify(value)}`, 44, 1, incremental(TOPIC, topic, [[key, value]], true));
      }
    }
  }, { exactMessages: true });
});
