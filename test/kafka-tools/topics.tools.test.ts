/**
 * kafka-topics (org.apache.kafka.tools.TopicCommand) against our server and Kafka 4.3.1: create
 * (with configs), list (with and without internal topics), describe (DescribeTopicPartitions and
 * DescribeConfigs), alter the partition count (4 -> 8, and a decrease refused), delete.
 */
import { describe } from 'vitest';
import { toolCase, useToolTargets } from './harness.js';

useToolTargets();

describe('kafka-topics', () => {
  toolCase('create, list, describe, alter partitions 4 -> 8 and 8 -> 2, delete', async (t) => {
    const orders = t.topic('orders');
    await t.call('create orders', 'kafka-topics', ['--create', '--topic', orders, '--partitions', '4', '--replication-factor', '1']);
    await t.call('create with configs', 'kafka-topics', ['--create', '--topic', t.topic('compacted'), '--partitions', '1', '--config', 'cleanup.policy=compact', '--config', 'retention.ms=3600000']);
    await t.call('create an existing topic', 'kafka-topics', ['--create', '--topic', orders, '--partitions', '1']);
    await t.call('create with a bad config', 'kafka-topics', ['--create', '--topic', t.topic('bad'), '--config', 'retention.ms=abc']);
    const list = await t.run('kafka-topics', ['--list']);
    t.record('list (this run and __consumer_offsets)', list.stdout.split('\n').filter((l) => l.endsWith(t.suffix) || l === '__consumer_offsets').join('\n'));
    const listNoInternal = await t.run('kafka-topics', ['--list', '--exclude-internal']);
    t.record('list --exclude-internal', String(listNoInternal.stdout.split('\n').includes('__consumer_offsets')));
    await t.call('describe orders', 'kafka-topics', ['--describe', '--topic', orders]);
    await t.call('describe the compacted topic', 'kafka-topics', ['--describe', '--topic', t.topic('compacted')]);
    await t.call('alter to 8 partitions', 'kafka-topics', ['--alter', '--topic', orders, '--partitions', '8']);
    await t.call('alter to 8 again', 'kafka-topics', ['--alter', '--topic', orders, '--partitions', '8']);
    await t.call('alter to 2', 'kafka-topics', ['--alter', '--topic', orders, '--partitions', '2']);
    await t.call('describe after', 'kafka-topics', ['--describe', '--topic', orders]);
    await t.call('delete', 'kafka-topics', ['--delete', '--topic', t.topic('compacted')]);
    await t.call('describe a deleted topic', 'kafka-topics', ['--describe', '--topic', t.topic('compacted')]);
  });

  toolCase('describe __consumer_offsets', async (t) => {
    await t.call('describe __consumer_offsets', 'kafka-topics', ['--describe', '--topic', '__consumer_offsets']);
  });

  toolCase('kafka-leader-election: preferred election of a partition its preferred leader leads, and of an unknown topic', async (t) => {
    const topic = t.topic('elect');
    await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', '2']);
    await t.call('preferred, one partition', 'kafka-leader-election', ['--election-type', 'preferred', '--topic', topic, '--partition', '0']);
    await t.call('unclean, one partition', 'kafka-leader-election', ['--election-type', 'unclean', '--topic', topic, '--partition', '1']);
    await t.call('an unknown topic', 'kafka-leader-election', ['--election-type', 'preferred', '--topic', t.topic('elect-missing'), '--partition', '0']);
  });
});
