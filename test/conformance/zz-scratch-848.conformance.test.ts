import { it, inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Session, sleep } from './runner.js';
import { startTestServer } from '../support/server.js';
import { SHARED_CONFIG } from './oracle.js';
import { writeFileSync } from 'node:fs';

function hb(groupId: string, memberId: string, memberEpoch: number, extra: Record<string, unknown> = {}) {
  return { groupId, memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, ...extra } as never;
}
const desc = (g: string) => ({ groupIds: [g], includeAuthorizedOperations: false }) as never;

async function script(s: Session) {
  const which = process.env.SCR ?? 'a';
  const g = s.name('g');
  const topic = s.name('t');
  const m1 = s.name('m1');
  const m2 = s.name('m2');
  const join = (m: string, t: string[] = [topic]) => hb(g, m, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: t, topicPartitions: [] });
  if (which === 'a') {
    await s.createTopic(topic, 2);
    const j = await s.call('join', 68, 1, join(m1));
    await s.call('describe', 69, 1, desc(g));
    await s.call('hb', 68, 1, hb(g, m1, j.memberEpoch, { topicPartitions: j.assignment?.topicPartitions ?? [] }));
    await s.call('describe', 69, 1, desc(g));
  } else if (which === 'a2') {
    // old topic, new group
    await s.createTopic(topic, 2);
    await sleep(3000);
    const j = await s.call('join', 68, 1, join(m1));
    await s.call('describe', 69, 1, desc(g));
    const g2 = s.name('gnotopic');
    await s.call('join no topic', 68, 1, hb(g2, m2, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [s.name('missing')], topicPartitions: [] }));
    await s.call('describe', 69, 1, desc(g2));
    const g3 = s.name('gempty');
    await s.call('join empty subs', 68, 1, hb(g3, m2, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [], topicPartitions: [] }));
    await s.call('describe', 69, 1, desc(g3));
  } else if (which === 'b') {
    await s.createTopic(topic, 4);
    const j = await s.call('M1 join', 68, 1, join(m1));
    const owned = (j.assignment?.topicPartitions ?? []).map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
    const h = await s.call('M1 hb', 68, 1, hb(g, m1, j.memberEpoch, { topicPartitions: owned }));
    const e1 = h.memberEpoch;
    await s.call('M2 join', 68, 1, join(m2), 'b');
    await s.call('M1 heartbeat (asked to revoke)', 68, 1, hb(g, m1, e1));
    await s.call('describe', 69, 1, desc(g));
    await s.call('M1 fenced', 68, 1, hb(g, m1, e1 + 10));
    await s.call('describe', 69, 1, desc(g));
    await s.call('M1 rejoin 0', 68, 1, join(m1));
    await s.call('describe', 69, 1, desc(g));
    await s.call('M1 rejoin 0 again', 68, 1, join(m1));
    await s.call('M2 hb', 68, 1, hb(g, m2, 0 + 0 || 1), 'b');
    await s.call('describe', 69, 1, desc(g));
  } else if (which === 'c') {
    // stable member rejoining with epoch 0 (not fenced), same subscription; then with a different subscription
    await s.createTopic(topic, 2);
    const j = await s.call('M1 join', 68, 1, join(m1));
    const owned = (j.assignment?.topicPartitions ?? []).map((t) => ({ topicId: t.topicId, partitions: t.partitions }));
    await s.call('M1 hb', 68, 1, hb(g, m1, j.memberEpoch, { topicPartitions: owned }));
    await s.call('M1 rejoin 0 stable', 68, 1, join(m1));
    await s.call('describe', 69, 1, desc(g));
    await s.call('M1 rejoin 0 with regex', 68, 1, hb(g, m1, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [], topicPartitions: [] }));
    await s.call('describe', 69, 1, desc(g));
  }
}

it('scratch', async () => {
  const ours = await startTestServer({ host: '127.0.0.1', config: { ...SHARED_CONFIG, 'offsets.topic.num.partitions': 1 } });
  try {
    const suffix = randomBytes(4).toString('hex');
    const k = new Session('kafka', inject('kafkaPort'), suffix);
    const o = new Session('ours', ours.port, suffix);
    await Promise.all([script(k).finally(() => k.close()), script(o).finally(() => o.close())]);
    writeFileSync(`/tmp/scr/${process.env.SCR ?? 'a'}-kafka.json`, JSON.stringify(k.normalised(), null, 1));
    writeFileSync(`/tmp/scr/${process.env.SCR ?? 'a'}-ours.json`, JSON.stringify(o.normalised(), null, 1));
  } finally {
    await ours.stop();
  }
}, 60000);
