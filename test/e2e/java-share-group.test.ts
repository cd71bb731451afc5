/**
 * Java kafka-clients 4.3.1 against the share-group side of the server (KIP-932,
 * test/clients/java/ShareGroupMembers.java): two `KafkaShareConsumer`s join a share group on a
 * 2-partition topic and get one partition each from the `simple` assignor once the partitions'
 * share state is initialized; `Admin.describeShareGroups` and `listGroups(forShareGroups)` show
 * them; closing them leaves the group Empty; `deleteShareGroups` deletes it. Skipped without java
 * and mvn (test/support/provision.ts).
 */
import { expect, it } from 'vitest';
import { expectOk, javaClasspath, recordApiVersions, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';

const classpath = javaClasspath!;

it.skipIf(javaClasspath === null)('two KafkaShareConsumers join a share group, share its partitions and leave it', async () => {
  const server = await startTestServer({
    config: { 'group.share.min.heartbeat.interval.ms': 100, 'group.share.heartbeat.interval.ms': 300, 'group.share.assignment.interval.ms': 0 },
  });
  try {
    const run = expectOk(await runJava(classpath, 'ShareGroupMembers', [server.bootstrap, 'share-topic', 'share-app']));
    recordApiVersions('share-group', server.faults.requests());
    const ev = Object.fromEntries(run.events.map((e) => [e['event'] as string, e]));
    const describe = ev['describe']!;
    expect(describe).toMatchObject({ state: 'Stable', coordinator: server.broker.nodeId });
    expect(describe['groupEpoch']).toBe(describe['targetAssignmentEpoch']);
    const members = describe['members'] as Array<Record<string, unknown>>;
    expect(members.map((m) => [m['clientId'], m['host'], m['consumerIdLength']])).toEqual([
      ['java-share-0', '/127.0.0.1', 22],
      ['java-share-1', '/127.0.0.1', 22],
    ]);
    expect(members.flatMap((m) => m['assignment'] as string[]).sort()).toEqual(['share-topic-0', 'share-topic-1']);
    expect(members.every((m) => m['memberEpoch'] === describe['groupEpoch'])).toBe(true);
    expect(ev['listGroups']!['groups']).toEqual([{ groupId: 'share-app', type: 'Share', protocol: 'share', state: 'Stable' }]);
    expect(ev['afterClose']).toMatchObject({ state: 'Empty', members: [] });
    expect(ev['deleted']).toMatchObject({ describe: 'GroupIdNotFoundException' });
    expect(server.broker.share.group('share-app')).toBeUndefined();
  } finally {
    await server.stop();
  }
}, 180_000);
