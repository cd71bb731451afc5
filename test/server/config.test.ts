import { describe, it, expect } from 'vitest';
import { BrokerConfig, ConfigError, configFromEnv, envVariableFor } from '../../src/config.js';

describe('BrokerConfig', () => {
  it('has Kafka defaults, except group.initial.rebalance.delay.ms', () => {
    const c = new BrokerConfig();
    expect(c.int('offsets.retention.minutes')).toBe(10080);
    expect(c.int('offsets.topic.num.partitions')).toBe(50);
    expect(c.int('offset.metadata.max.bytes')).toBe(4096);
    expect(c.int('group.initial.rebalance.delay.ms')).toBe(0);
    expect(c.string('mock.flush.policy')).toBe('always');
  });

  it('rejects an invalid value naming the key', () => {
    expect(() => new BrokerConfig({ 'num.partitions': 'many' })).toThrow(ConfigError);
    expect(() => new BrokerConfig({ 'num.partitions': 0 })).toThrow(/num\.partitions/);
    expect(() => new BrokerConfig({ 'mock.flush.policy': 'sometimes' })).toThrow(/mock\.flush\.policy/);
    expect(() => new BrokerConfig({ 'group.min.session.timeout.ms': 10, 'group.max.session.timeout.ms': 5 })).toThrow(/group\.max\.session\.timeout\.ms/);
  });

  it('parses booleans in any case, doubles as Java does, and log.cleanup.policy as Kafka\'s ValidList (KafkaConfig.fromProps)', () => {
    expect(new BrokerConfig({ 'auto.create.topics.enable': 'FALSE' }).bool('auto.create.topics.enable')).toBe(false);
    expect(new BrokerConfig({ 'auto.create.topics.enable': 'True' }).bool('auto.create.topics.enable')).toBe(true);
    expect(new BrokerConfig({ 'log.cleaner.min.cleanable.ratio': '0.5d' }).double('log.cleaner.min.cleanable.ratio')).toBe(0.5);
    expect(new BrokerConfig({ 'log.cleaner.min.cleanable.ratio': '0x1p-2' }).double('log.cleaner.min.cleanable.ratio')).toBe(0.25);
    expect(new BrokerConfig({ 'log.cleaner.min.cleanable.ratio': 'NaN' }).double('log.cleaner.min.cleanable.ratio')).toBeNaN();
    expect(() => new BrokerConfig({ 'log.cleaner.min.cleanable.ratio': '5' })).toThrow(/log\.cleaner\.min\.cleanable\.ratio/);
    expect(() => new BrokerConfig({ 'log.cleaner.min.cleanable.ratio': 'nan' })).toThrow(/log\.cleaner\.min\.cleanable\.ratio/);
    // Ours take finite numbers only; the wait a minute at most.
    for (const key of ['mock.flush.inline.sync.max.ms', 'mock.flush.inline.sync.wait.ms']) {
      for (const bad of ['NaN', 'Infinity', '1e400']) expect(() => new BrokerConfig({ [key]: bad })).toThrow(`invalid config ${key}: expected a finite number, got "${bad}"`);
    }
    expect(() => new BrokerConfig({ 'mock.flush.inline.sync.wait.ms': '60000.5' })).toThrow('invalid config mock.flush.inline.sync.wait.ms: must be at most 60000, got 60000.5');
    expect(new BrokerConfig({ 'mock.flush.inline.sync.wait.ms': '0.1d' }).double('mock.flush.inline.sync.wait.ms')).toBe(0.1);
    for (const ok of ['compact', 'compact,delete', 'compact, compact', '']) expect(new BrokerConfig({ 'log.cleanup.policy': ok }).string('log.cleanup.policy')).toBe(ok);
    for (const bad of ['foo', 'Compact', 'compact,,delete']) expect(() => new BrokerConfig({ 'log.cleanup.policy': bad })).toThrow(/log\.cleanup\.policy/);
  });

  it("takes a leading '+' on INT, LONG and DOUBLE values as Java's parseInt/parseLong/parseDouble do (ConfigDef.parseType, after trim)", () => {
    const c = new BrokerConfig({ 'num.partitions': '+3', 'log.retention.ms': ' +604800000 ', 'log.cleaner.min.cleanable.ratio': '+0.25' });
    expect([c.int('num.partitions'), c.long('log.retention.ms'), c.double('log.cleaner.min.cleanable.ratio')]).toEqual([3, 604800000n, 0.25]);
    expect(() => new BrokerConfig({ 'num.partitions': '++3' })).toThrow('invalid config num.partitions: expected an integer, got "++3"');
    expect(() => new BrokerConfig({ 'num.partitions': '+' })).toThrow('invalid config num.partitions: expected an integer, got "+"');
    expect(() => new BrokerConfig({ 'num.partitions': '+0' })).toThrow('invalid config num.partitions: must be at least 1, got +0');
  });

  it('accepts unknown keys and lists them', () => {
    expect(new BrokerConfig({ 'log.retention.hours': 1, 'background.threads': 4 }).unknownKeys).toEqual(['background.threads']);
  });

  it('names the environment variable of a key', () => {
    expect(envVariableFor('offsets.retention.minutes')).toBe('KAFKA_OFFSETS_RETENTION_MINUTES');
    expect(configFromEnv({ [envVariableFor('log.flush.interval.ms')]: '5' })).toEqual({ 'log.flush.interval.ms': '5' });
  });

  it('maps KAFKA_* environment variables as the apache/kafka image does', () => {
    expect(configFromEnv({ KAFKA_OFFSETS_RETENTION_MINUTES: '5', KAFKA_HEAP_OPTS: '-Xmx1g', KAFKA_NUM_PARTITIONS: '3', PATH: '/bin' }))
      .toEqual({ 'offsets.retention.minutes': '5', 'num.partitions': '3' });
  });
});
