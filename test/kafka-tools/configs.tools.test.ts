/**
 * kafka-configs (kafka.admin.ConfigCommand) against our server and Kafka 4.3.1: topic configs
 * described, added, deleted, described with --all; broker configs (the worked example: a config
 * Kafka cannot change dynamically refused with its exact message and left unchanged; a dynamic one
 * set and deleted; the cluster defaults); group configs.
 */
import { describe } from 'vitest';
import { toolCase, useToolTargets } from './harness.js';

useToolTargets();

const configs = (t: { bootstrap: string }) => ['--bootstrap-server', t.bootstrap];

describe('kafka-configs', () => {
  toolCase('topics: describe, add-config, delete-config, --all', async (t) => {
    const topic = t.topic('cfg');
    await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', '1']);
    const entity = ['--entity-type', 'topics', '--entity-name', topic];
    await t.call('describe (none set)', 'kafka-configs', ['--describe', ...entity]);
    await t.call('add retention.ms and max.message.bytes', 'kafka-configs', ['--alter', ...entity, '--add-config', 'retention.ms=3600000,max.message.bytes=51200']);
    await t.call('describe', 'kafka-configs', ['--describe', ...entity]);
    await t.call('add cleanup.policy (a list)', 'kafka-configs', ['--alter', ...entity, '--add-config', 'cleanup.policy=[compact,delete]']);
    await t.call('delete retention.ms', 'kafka-configs', ['--alter', ...entity, '--delete-config', 'retention.ms']);
    await t.call('describe --all', 'kafka-configs', ['--describe', '--all', ...entity]);
    await t.call('an unknown config', 'kafka-configs', ['--alter', ...entity, '--add-config', 'foo=1']);
    await t.call('a bad value', 'kafka-configs', ['--alter', ...entity, '--add-config', 'retention.ms=abc']);
    await t.call('an unknown topic', 'kafka-configs', ['--describe', '--entity-type', 'topics', '--entity-name', t.topic('missing')]);
  });

  toolCase("brokers: offsets.retention.minutes refused with Kafka's message and unchanged; a dynamic config set and deleted; the cluster defaults", async (t) => {
    const broker = ['--entity-type', 'brokers', '--entity-name', '1'];
    await t.call('describe broker 1', 'kafka-configs', [...configs(t), '--describe', ...broker], { bootstrap: false });
    await t.call('alter offsets.retention.minutes', 'kafka-configs', ['--alter', ...broker, '--add-config', 'offsets.retention.minutes=1']);
    const all = await t.run('kafka-configs', ['--describe', '--all', ...broker]);
    t.record('offsets.retention.minutes after', all.stdout.split('\n').filter((l) => l.includes('offsets.retention.minutes=')).join('\n'));
    // A dynamic config that no topic's description shows: the tools' files share the two brokers, and
    // a broker-level log.retention.ms would show as every topic's retention.ms in kafka-topics --describe.
    await t.call('alter log.cleaner.threads', 'kafka-configs', ['--alter', ...broker, '--add-config', 'log.cleaner.threads=2']);
    await t.call('describe broker 1 after', 'kafka-configs', ['--describe', ...broker]);
    await t.call('delete log.cleaner.threads', 'kafka-configs', ['--alter', ...broker, '--delete-config', 'log.cleaner.threads']);
    await t.call('describe the cluster defaults', 'kafka-configs', ['--describe', '--entity-type', 'brokers', '--entity-default']);
    await t.call('describe a broker that does not exist', 'kafka-configs', ['--describe', '--entity-type', 'brokers', '--entity-name', '7']);
  });

  toolCase('groups: add, describe, the bounds, delete', async (t) => {
    const entity = ['--entity-type', 'groups', '--entity-name', t.topic('cfg-group')];
    await t.call('add consumer.session.timeout.ms', 'kafka-configs', ['--alter', ...entity, '--add-config', 'consumer.session.timeout.ms=10000,consumer.heartbeat.interval.ms=1000']);
    await t.call('describe', 'kafka-configs', ['--describe', ...entity]);
    await t.call('below the minimum', 'kafka-configs', ['--alter', ...entity, '--add-config', 'consumer.session.timeout.ms=100']);
    await t.call('delete', 'kafka-configs', ['--alter', ...entity, '--delete-config', 'consumer.session.timeout.ms,consumer.heartbeat.interval.ms']);
    await t.call('describe after', 'kafka-configs', ['--describe', ...entity]);
  });
});
