/**
 * kafka-share-groups (ShareGroupCommand) and kafka-console-share-consumer (ConsoleShareConsumer)
 * against our server and Kafka 4.3.1: a console share consumer reading N records; list; describe
 * offsets (START-OFFSET is the share coordinator's: the one written with the last acknowledgement,
 * which stays behind the records acknowledged by it), members and state (--verbose) of a live and
 * an empty group; reset-offsets (earliest, latest, a datetime; dry run and execute; Kafka 4.3.1's
 * tool has no --to-offset), the next consumer reading from the reset offset; delete-offsets;
 * delete. The groups read from the start (`share.auto.offset.reset=earliest`, set with
 * kafka-configs); topics have one partition, so which consumer gets what is the same on both.
 */
import { describe } from 'vitest';
import { toolCase, useToolTargets, type Target } from './harness.js';

useToolTargets();

/** A one-partition topic with `n` records `value-0..` written by kafka-console-producer. */
async function topicWithRecords(t: Target, base: string, n: number): Promise<string> {
  const topic = t.topic(base);
  await t.run('kafka-topics', ['--create', '--topic', topic, '--partitions', '1']);
  await produce(t, topic, 0, n);
  return topic;
}

async function produce(t: Target, topic: string, from: number, n: number): Promise<void> {
  const lines = Array.from({ length: n }, (_, i) => `value-${from + i}`).join('\n') + '\n';
  const produced = await t.run('kafka-console-producer', ['--topic', topic], { stdin: lines });
  if (produced.code !== 0) throw new Error(`console producer: ${produced.stderr}`);
}

/** `share.auto.offset.reset=earliest` for `group` (a group config; the group need not exist). */
async function fromEarliest(t: Target, group: string): Promise<void> {
  const r = await t.run('kafka-configs', ['--alter', '--entity-type', 'groups', '--entity-name', group, '--add-config', 'share.auto.offset.reset=earliest']);
  if (r.code !== 0) throw new Error(`kafka-configs: ${r.stdout} ${r.stderr}`);
}

/** kafka-console-share-consumer reading `n` records (recorded, sorted: acquisition follows batch timing). */
async function consume(t: Target, label: string, topic: string, group: string, n: number): Promise<void> {
  const r = await t.run('kafka-console-share-consumer', ['--topic', topic, '--group', group, '--max-messages', String(n), '--timeout-ms', '60000']);
  t.record(label, [`exit ${r.code}`, ...r.stdout.trimEnd().split('\n').sort()].join('\n'));
}

describe('kafka-share-groups, kafka-console-share-consumer', () => {
  toolCase('a console share consumer reads N records; list; describe offsets, members and state of a live and an empty group', async (t) => {
    const topic = await topicWithRecords(t, 'sg', 10);
    const group = t.topic('sg-group');
    await fromEarliest(t, group);
    await consume(t, 'kafka-console-share-consumer --max-messages 10', topic, group, 10);
    await produce(t, topic, 10, 5);
    await consume(t, 'the next 5', topic, group, 5);
    const list = await t.run('kafka-share-groups', ['--list']);
    t.record('list (this run)', list.stdout.split('\n').filter((l) => l.endsWith(t.suffix)).sort().join('\n'));
    await t.call('describe (offsets) of the empty group', 'kafka-share-groups', ['--describe', '--group', group]);
    await t.call('describe --offsets --verbose', 'kafka-share-groups', ['--describe', '--group', group, '--offsets', '--verbose']);
    await t.call('describe --members of the empty group', 'kafka-share-groups', ['--describe', '--group', group, '--members']);
    await t.call('describe --state of the empty group', 'kafka-share-groups', ['--describe', '--group', group, '--state']);
    // A live member: a console share consumer left running.
    t.start('kafka-console-share-consumer', ['--topic', topic, '--group', group]);
    const members = ['--describe', '--group', group, '--members'];
    await t.until('kafka-share-groups', members, (out) => out.split('\n').some((l) => l.startsWith(group) && / 1 +\S+:0\s*$/.test(l)));
    await t.call('describe --members of the live group', 'kafka-share-groups', members);
    await t.call('describe --members --verbose', 'kafka-share-groups', [...members, '--verbose']);
    await t.call('describe --state', 'kafka-share-groups', ['--describe', '--group', group, '--state']);
    await t.call('reset-offsets while a member is in', 'kafka-share-groups', ['--reset-offsets', '--group', group, '--topic', topic, '--to-earliest', '--execute']);
    await t.call('describe an unknown group', 'kafka-share-groups', ['--describe', '--group', t.topic('sg-unknown')]);
  });

  toolCase('reset-offsets (earliest, latest, datetime; dry run, execute), the next consumer reads from there; delete-offsets; delete', async (t) => {
    const topic = await topicWithRecords(t, 'rs', 10);
    const group = t.topic('rs-group');
    await fromEarliest(t, group);
    await consume(t, 'first 10', topic, group, 10);
    const reset = (label: string, ...how: string[]) => t.call(label, 'kafka-share-groups', ['--reset-offsets', '--group', group, '--topic', topic, ...how]);
    await reset('to-earliest (dry run)', '--to-earliest', '--dry-run');
    await reset('to-earliest', '--to-earliest', '--execute');
    await t.call('describe after the reset', 'kafka-share-groups', ['--describe', '--group', group]);
    await consume(t, 'all 10 again', topic, group, 10);
    await reset('to-latest', '--to-latest', '--execute');
    await reset('to-datetime in the past', '--to-datetime', '2020-01-01T00:00:00.000', '--execute');
    await t.call('delete-offsets', 'kafka-share-groups', ['--delete-offsets', '--group', group, '--topic', topic]);
    await t.call('describe after delete-offsets', 'kafka-share-groups', ['--describe', '--group', group]);
    await t.call('delete-offsets again', 'kafka-share-groups', ['--delete-offsets', '--group', group, '--topic', topic]);
    await t.call('delete-offsets of an unknown topic', 'kafka-share-groups', ['--delete-offsets', '--group', group, '--topic', t.topic('no-such-topic')]);
    await t.call('delete', 'kafka-share-groups', ['--delete', '--group', group]);
    await t.call('describe after delete', 'kafka-share-groups', ['--describe', '--group', group]);
    await t.call('reset-offsets of a group that does not exist (it is created)', 'kafka-share-groups', ['--reset-offsets', '--group', t.topic('rs-new'), '--topic', topic, '--to-latest', '--execute']);
    await t.call('describe the group the reset created', 'kafka-share-groups', ['--describe', '--group', t.topic('rs-new'), '--state']);
  });
});
