/**
 * The Java `Admin` client (org.apache.kafka:kafka-clients 4.3.1, test/clients/java/AdminGroups.java)
 * against the server: listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets,
 * alterConsumerGroupOffsets, deleteConsumerGroupOffsets (OffsetDelete), deleteConsumerGroups,
 * describeCluster and describeConfigs, with exact results. API versions used go to
 * test/clients/java/api-versions.json. Skipped (test/support/provision.ts says why) without java and mvn.
 */
import { expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, recordApiVersions, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';

const classpath = javaClasspath!;

it.skipIf(javaClasspath === null)('Admin group APIs answer as Kafka does', async () => {
  const server = await startTestServer({
    config: { 'group.consumer.min.heartbeat.interval.ms': 500, 'group.consumer.heartbeat.interval.ms': 500, 'group.consumer.assignment.interval.ms': 0 },
  });
  try {
    const run = expectOk(await runJava(classpath, 'AdminGroups', [server.bootstrap, 'admin-topic']));
    recordApiVersions('admin', server.faults.requests());
    const ev = Object.fromEntries(run.events.map((e) => [e['event'] as string, e]));

    expect(ev['listConsumerGroups']!['groups']).toEqual([
      { groupId: 'g-done', isSimple: false, state: 'Empty', type: 'Classic' },
      { groupId: 'g-live', isSimple: false, state: 'Stable', type: 'Classic' },
      { groupId: 'g-live848', isSimple: false, state: 'Stable', type: 'Consumer' },
    ]);

    const member = (clientId: string) => ({ clientId, host: '/127.0.0.1', memberIdEmpty: false, assignment: ['admin-topic-0', 'admin-topic-1'] });
    expect(ev['describeConsumerGroups']).toEqual({
      event: 'describeConsumerGroups',
      'g-done': { state: 'Empty', type: 'Classic', isSimple: false, assignor: '', coordinator: 1, members: [] },
      'g-live': { state: 'Stable', type: 'Classic', isSimple: false, assignor: 'range', coordinator: 1, members: [member('java-consumer-g-live')] },
      'g-live848': { state: 'Stable', type: 'Consumer', isSimple: false, assignor: 'uniform', coordinator: 1, members: [member('java-consumer-g-live848')] },
    });

    expect(ev['listConsumerGroupOffsets']).toMatchObject({
      'g-done': { 'admin-topic-0': 5, 'admin-topic-1': 5 },
      'g-live': { 'admin-topic-0': 5, 'admin-topic-1': 5 },
    });

    // OffsetCommit from a client outside the group: fine on an Empty group, UNKNOWN_MEMBER_ID on a live one.
    expect(ev['alterConsumerGroupOffsets']).toMatchObject({
      offsets: { 'admin-topic-0': 1, 'admin-topic-1': 5 },
      metadata: 'rewound',
      liveGroup: 'UnknownMemberIdException',
    });

    // OffsetDelete: tombstones for an Empty group; GROUP_SUBSCRIBED_TO_TOPIC for topics a classic or
    // KIP-848 group consumes; GROUP_ID_NOT_FOUND for an unknown group.
    expect(ev['deleteConsumerGroupOffsets']).toMatchObject({
      emptyGroup: 'OK',
      emptyGroupAfter: { 'admin-topic-0': 1 },
      subscribedClassic: 'GroupSubscribedToTopicException',
      subscribedConsumer: 'GroupSubscribedToTopicException',
      unknownGroup: 'GroupIdNotFoundException',
    });

    expect(ev['deleteConsumerGroups']).toMatchObject({
      'g-done': 'OK',
      'g-live': 'GroupNotEmptyException',
      'g-unknown': 'GroupIdNotFoundException',
      groupsAfter: ['g-live', 'g-live848'],
    });

    expect(ev['describeCluster']).toMatchObject({
      clusterId: server.broker.clusterId,
      controller: 1,
      nodes: [`1@${server.broker.advertised.host}:${server.broker.advertised.port}`],
    });

    expect(ev['describeConfigs']).toMatchObject({
      broker: {
        'offsets.retention.minutes': { value: '10080', source: 'DEFAULT_CONFIG', readOnly: true },
        // Our default (0) is not Kafka's (3000): answered as a broker configured with it.
        'group.initial.rebalance.delay.ms': { value: '0', source: 'STATIC_BROKER_CONFIG', readOnly: true },
        'log.roll.ms': { value: 'null', source: 'DEFAULT_CONFIG', readOnly: false },
      },
      topic: {
        'cleanup.policy': { value: 'delete', source: 'DEFAULT_CONFIG', readOnly: false },
        'segment.bytes': { value: '1073741824', source: 'DEFAULT_CONFIG', readOnly: false },
        'retention.ms': { value: '604800000', source: 'DEFAULT_CONFIG', readOnly: false },
      },
      offsets: {
        'cleanup.policy': { value: 'compact', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false },
        'segment.bytes': { value: '104857600', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false },
      },
      missingTopic: 'UnknownTopicOrPartitionException',
    });
  } finally {
    await server.stop();
  }
}, 240_000);
