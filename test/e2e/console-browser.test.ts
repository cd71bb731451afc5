/**
 * The web console in a real browser: Debian's headless Chromium driven by playwright-core, against a
 * real server with its admin API, while a kafkajs group consumes and commits. What the page shows
 * is checked by its visible text; the page must follow changes without a reload (server-sent
 * events) and its own same-origin requests must pass the admin API's guard (src/admin/guard.ts),
 * also when the API needs a token. Screenshots go to .tmp/screenshots/ (kept as test artefacts).
 *
 * Needs Chromium (`apt-get install chromium`, found by test/support/provision.ts); without it the
 * suite is skipped with one line, or fails under KMC_REQUIRE_CLIENTS=1 (.ci/run).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { clients, REPO_ROOT } from '../support/clients.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { startTestServer, tempDataDir } from '../support/server.js';
import { parsePrometheus } from '../support/prometheus.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, initProducer } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer, ZERO_UUID } from '../../src/protocol/primitives.js';
import { shareGroupHolding, SHARE_TEST_CONFIG } from '../support/share-group.js';
import { KIP848_CONFIG, hb } from '../support/kip848-group.js';
import { STREAMS_TEST_CONFIG, activeOf, beat as streamsBeat, internalTopicsCreated, join as streamsJoin } from '../support/streams-group.js';
import * as Sub from '../../src/records/schemas/ConsumerProtocolSubscription.js';

const chromiumBin = clients().chromium;
const SHOTS = join(REPO_ROOT, '.tmp', 'screenshots');
const TOPIC = 'console-topic';
const GROUP = 'console-group';
/** The least time between two of a page's refreshes for live changes (console/src/main.ts LIVE_REFRESH_MIN_MS). */
const LIVE_REFRESH_MIN_MS = 1000;
/** Hangs the test only as a backstop: every wait below ends on an event (text appearing). */
const UI_TIMEOUT = 60_000;

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Rows of a table on the page, as the user reads them: cell texts. */
async function rows(page: Page, tableId: string): Promise<string[][]> {
  return page.locator(`#${tableId} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim())));
}

describe.skipIf(chromiumBin === null)('web console (Chromium)', () => {
  let server: Server;
  let browser: Browser;
  const consumers: Consumer[] = [];
  let producer: Producer;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await playwright.launch({ executablePath: chromiumBin!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => {})));
    await producer?.disconnect().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  /**
   * A member of GROUP that commits each message it reads (offset + 1) except those whose value is
   * `tail`: so the committed offsets, and the lag behind the tails, are known exactly.
   */
  async function member(kafka: Kafka): Promise<Consumer> {
    const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 200 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (message.value?.toString() === 'tail') return;
        await consumer.commitOffsets([{ topic: TOPIC, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
    return consumer;
  }

  const committed = (partition: number): number | undefined => {
    const found = server.broker.offsets.offsetsOf(GROUP).find((o) => o.topic === TOPIC && o.partition === partition);
    return found === undefined ? undefined : Number(found.offset.committedOffset);
  };

  it('shows the group, its members, committed offsets and lag; follows a third member live; a rule added on the page fails the next OffsetCommit', async () => {
    server = await startTestServer({ adminPort: 0 });
    const admin = kafkaClient(server.bootstrap, 'console-admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    await admin.disconnect();
    // Both members first, then the messages: each partition is consumed and committed by its owner.
    await member(kafkaClient(server.bootstrap, 'console-member-a'));
    await member(kafkaClient(server.bootstrap, 'console-member-b'));
    const membersNow = () => server.broker.classic.allGroups().find((g) => g.groupId === GROUP);
    await waitFor(() => membersNow()?.state === 'Stable' && membersNow()?.numMembers === 2, UI_TIMEOUT, 'two members, stable');
    producer = kafkaClient(server.bootstrap, 'console-producer').producer();
    await producer.connect();
    const values = (n: number, tails: number) => [...Array.from({ length: n }, (_, i) => ({ value: `m${i}` })), ...Array.from({ length: tails }, () => ({ value: 'tail' }))];
    await producer.send({ topic: TOPIC, acks: -1, messages: values(5, 2).map((m) => ({ ...m, partition: 0 })) });
    await producer.send({ topic: TOPIC, acks: -1, messages: values(3, 1).map((m) => ({ ...m, partition: 1 })) });
    await waitFor(() => committed(0) === 5 && committed(1) === 3, UI_TIMEOUT, 'commits at 5 and 3');

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${server.admin!.url}/`);
    await page.locator('#groups').getByText(GROUP).waitFor({ timeout: UI_TIMEOUT });
    await page.locator('#live:not(.off)').waitFor({ timeout: UI_TIMEOUT });
    expect(await rows(page, 'topics')).toEqual([[TOPIC, '2', 'p0: 0-7, p1: 0-4', expect.stringMatching(/ B$| KiB$/)]]);
    expect(await rows(page, 'groups')).toEqual([[GROUP, 'classic', 'Stable', 'RoundRobinAssigner', '2', '3']]);
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });

    await page.locator('#groups').getByText(GROUP).click();
    await page.locator('#members').getByText('console-member-b', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
    const members = await rows(page, 'members');
    expect(members.map((r) => r[2]).sort()).toEqual(['console-member-a', 'console-member-b']);
    // Each member owns one of the two partitions.
    expect(members.map((r) => r[6]).sort()).toEqual([`${TOPIC} [0]`, `${TOPIC} [1]`]);
    // Each session runs: at most kafkajs' sessionTimeout (10 s) to go.
    for (const r of members) expect(Number(/^(\d+\.\d) s$/.exec(r[5]!)?.[1])).toBeLessThanOrEqual(10);
    const partitions = await rows(page, 'partitions');
    expect(partitions.map((r) => r.slice(0, 5))).toEqual([
      [TOPIC, '0', '5', '7', '2'],
      [TOPIC, '1', '3', '4', '1'],
    ]);
    // /metrics, scraped in the same run, agrees with the page (kafka_exporter's names).
    const metrics = parsePrometheus(await (await fetch(`${server.admin!.url}/metrics`)).text());
    const labels = (p: number) => `{consumergroup="${GROUP}",partition="${p}",topic="${TOPIC}"}`;
    expect([0, 1].map((p) => [metrics.get(`kafka_consumergroup_current_offset${labels(p)}`), metrics.get(`kafka_consumergroup_lag${labels(p)}`)])).toEqual([[5, 2], [3, 1]]);
    expect(metrics.get(`kafka_consumergroup_members{consumergroup="${GROUP}"}`)).toBe(2);
    // The committing member is the owner of the partition, named by its client id.
    const owner = (p: number) => members.find((r) => r[6] === `${TOPIC} [${p}]`)![2]!;
    expect(partitions[0]![6]).toContain(owner(0));
    expect(partitions[1]![6]).toContain(owner(1));
    // How the members appear (at first sight, or each joining) depends on when the watch looked.
    const timeline = await page.locator('#timeline').innerText();
    expect(timeline).toContain('console-member-a');
    expect(timeline).toContain('console-member-b');
    expect(timeline).toMatch(/commit request\(s\), last by console-member-[ab]/);
    // Commits can be hidden from the timeline (under a stream of them they push the rebalances off
    // the list), and shown again.
    await page.locator('#timeline-commits').uncheck();
    const withoutCommits = await page.locator('#timeline').innerText();
    expect([withoutCommits.includes('commit request(s)'), withoutCommits.includes('console-member-a'), withoutCommits.includes('console-member-b')]).toEqual([false, true, true]);
    await page.locator('#timeline-commits').check();
    expect(await page.locator('#timeline').innerText()).toMatch(/commit request\(s\), last by console-member-[ab]/);
    await page.locator('#lag-chart canvas').waitFor({ timeout: UI_TIMEOUT });
    await page.screenshot({ path: join(SHOTS, 'group.png'), fullPage: true });

    // A third member joins: the page follows without a reload (the marker set now survives).
    await page.evaluate(() => ((window as unknown as { kmcMarker: number }).kmcMarker = 42));
    await member(kafkaClient(server.bootstrap, 'console-member-c'));
    await page.locator('#members').getByText('console-member-c', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
    expect(await page.evaluate(() => (window as unknown as { kmcMarker?: number }).kmcMarker)).toBe(42);
    await page.locator('#timeline').getByText(/member joined: console-member-c/).waitFor({ timeout: UI_TIMEOUT });
    await page.locator('#timeline').getByText(/rebalance to generation\/epoch \d+ \(cause: join/).first().waitFor({ timeout: UI_TIMEOUT });
    await waitFor(() => membersNow()?.state === 'Stable' && membersNow()?.numMembers === 3, UI_TIMEOUT, 'three members, stable');
    await page.locator('#members tbody tr').nth(2).waitFor({ timeout: UI_TIMEOUT });
    expect((await rows(page, 'members')).map((r) => r[2]).sort()).toEqual(['console-member-a', 'console-member-b', 'console-member-c']);
    await page.screenshot({ path: join(SHOTS, 'group-three-members.png'), fullPage: true });

    // A fault rule added with the page's form (a same-origin POST through the guard) ...
    await page.locator('nav').getByText('Faults').click();
    await page.locator('#add-rule').waitFor({ timeout: UI_TIMEOUT });
    // Two forms on the page (add a rule, filter the request log): no id twice.
    expect(await page.evaluate(() => { const ids = [...document.querySelectorAll('[id]')].map((e) => e.id); return ids.filter((id, i) => ids.indexOf(id) !== i); })).toEqual([]);
    await page.fill('#rule-api', 'OffsetCommit');
    await page.fill('#rule-group', GROUP);
    // The topic too: a rule on the group alone would also fire on an OffsetCommit naming no
    // partition (a consumer's commit with nothing new), which carries no error to show.
    await page.fill('#rule-topic', TOPIC);
    await page.selectOption('#rule-action', 'error');
    await page.fill('#rule-error', 'COORDINATOR_LOAD_IN_PROGRESS');
    await page.fill('#rule-times', '1');
    await page.click('#add-rule button[type=submit]');
    await page.locator('#rule-message').getByText(/Added rule f\d+/).waitFor({ timeout: UI_TIMEOUT });
    const [rule] = server.faults.list();
    expect(rule).toMatchObject({ match: { api: 'OffsetCommit', group: GROUP, topic: TOPIC }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, times: 1, fired: 0 });
    const since = server.faults.requests().at(-1)!.seq;
    // ... makes the next OffsetCommit fail: one more message for partition 1 makes its owner commit.
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 1, value: 'm-after-rule' }] });
    await server.faults.get(rule!.id)!.waitFired(1, { timeoutMs: UI_TIMEOUT });
    // The rule fires as the request arrives; its log entry gets its error once the answer is written.
    await vi.waitFor(() => expect(server.faults.requests({ api: 'OffsetCommit', sinceSeq: since })[0]?.outcome).not.toBe('pending'), { timeout: UI_TIMEOUT });
    const commits = server.faults.requests({ api: 'OffsetCommit', sinceSeq: since });
    expect(commits[0]).toMatchObject({ group: GROUP, error: 'COORDINATOR_LOAD_IN_PROGRESS', faults: [rule!.id] });
    // The page shows the firing by itself.
    await page.locator('#rules tbody tr').filter({ hasText: rule!.id }).getByText('exhausted').waitFor({ timeout: UI_TIMEOUT });
    expect((await rows(page, 'rules'))[0]!.slice(0, 6)).toEqual([rule!.id, `api=OffsetCommit group=${GROUP} topic=${TOPIC}`, 'error error=COORDINATOR_LOAD_IN_PROGRESS', '1', '1', 'exhausted']);
    await page.locator('#requests').getByText('COORDINATOR_LOAD_IN_PROGRESS').first().waitFor({ timeout: UI_TIMEOUT });
    // Each row names the broker that received the request; "failed only" asks the server for failures alone.
    const header = await page.locator('#requests thead th').allInnerTexts();
    expect(header).toEqual(['#', 'time', 'broker', 'api', 'version', 'client id', 'group', 'error', 'faults', 'outcome', 'ms']);
    const failedRow = (r: string[]) => r[7] !== 'NONE' || r[8] !== '-' || r[9] !== 'response';
    await page.check('#filter-failed');
    await vi.waitFor(async () => expect((await rows(page, 'requests')).every(failedRow)).toBe(true), { timeout: UI_TIMEOUT });
    const failedRows = await rows(page, 'requests');
    expect(failedRows.find((r) => r[0] === String(commits[0]!.seq))?.slice(2)).toEqual([String(commits[0]!.brokerId), 'OffsetCommit', String(commits[0]!.version), commits[0]!.clientId, GROUP, 'COORDINATOR_LOAD_IN_PROGRESS', rule!.id, 'response', String(commits[0]!.durationMs)]);
    await page.screenshot({ path: join(SHOTS, 'faults.png'), fullPage: true });
    await page.uncheck('#filter-failed');
    // The group's page lists its failed requests, the one the rule answered among them.
    await page.evaluate((g) => (location.hash = `#/groups/${g}`), GROUP);
    await page.locator('#group-failures').getByText(rule!.id).waitFor({ timeout: UI_TIMEOUT });
    const groupFailures = await rows(page, 'group-failures');
    expect(groupFailures.every(failedRow)).toBe(true);
    expect(groupFailures.find((r) => r[0] === String(commits[0]!.seq))?.slice(3, 9)).toEqual(['OffsetCommit', String(commits[0]!.version), commits[0]!.clientId, GROUP, 'COORDINATOR_LOAD_IN_PROGRESS', rule!.id]);
    await page.evaluate(() => (location.hash = '#/faults'));
    await page.locator('#add-rule').waitFor({ timeout: UI_TIMEOUT });
    // A rule naming ids by prefix shows the prefix with a star.
    const byPrefix = server.faults.add({ match: { api: 'EndTxn', transactionalId: { prefix: 'shop-' } }, action: { type: 'delay', ms: 1 } });
    await page.reload();
    await page.locator('#rules tbody tr').filter({ hasText: byPrefix.id }).getByText('api=EndTxn transactionalId=shop-*').waitFor({ timeout: UI_TIMEOUT });
    server.faults.remove(byPrefix.id);
    // A group whose offsets wait in an open transaction: the group page lists them with their transactional id.
    const txProducer = kafkaClient(server.bootstrap, 'console-txn').producer({ transactionalId: 'console-tx', idempotent: true, maxInFlightRequests: 1 });
    await txProducer.connect();
    const txn = await txProducer.transaction();
    await txn.sendOffsets({ consumerGroupId: 'console-txn-group', topics: [{ topic: TOPIC, partitions: [{ partition: 1, offset: '2' }] }] });
    await page.evaluate(() => (location.hash = '#/groups/console-txn-group'));
    await page.locator('#pending-offsets').getByText('console-tx').waitFor({ timeout: UI_TIMEOUT });
    const producerId = String(server.broker.transactions.get('console-tx')!.producerId);
    expect(await rows(page, 'pending-offsets')).toEqual([[TOPIC, '1', '2', 'console-tx', producerId]]);
    await txn.abort();
    await txProducer.disconnect();
    // A hand-typed hash with a bare '%' (not a valid escape) names that group literally.
    await page.evaluate(() => (location.hash = '#/groups/50%off'));
    await page.locator('#group-id').getByText('50%off', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
    await page.getByText('No group "50%off" (yet).').waitFor({ timeout: UI_TIMEOUT });
    // `..` is a valid group id that no URL path can name (dot segments are folded): the console asks
    // for it by query (`/group?groupId=..`), its partitions show, and its history is there by query too.
    const dotsAdmin = kafkaClient(server.bootstrap, 'console-dots').admin();
    await dotsAdmin.connect();
    await dotsAdmin.setOffsets({ groupId: '..', topic: TOPIC, partitions: [{ partition: 0, offset: '3' }] });
    await dotsAdmin.disconnect();
    await page.evaluate(() => (location.hash = '#/groups/..'));
    await page.locator('#group-id').getByText('..', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
    await page.locator('#partitions').getByText(TOPIC).waitFor({ timeout: UI_TIMEOUT });
    expect((await rows(page, 'partitions')).map((r) => r.slice(0, 3))).toEqual([[TOPIC, '0', '3']]);
    const history = (await (await fetch(`${server.admin!.url}/group/history?groupId=..`)).json()) as { groupId: string; events: Array<{ kind: string }> };
    expect([history.groupId, history.events[0]!.kind]).toEqual(['..', 'seen']);
    expect(await (await fetch(`${server.admin!.url}/group/offsets?groupId=..`)).json()).toMatchObject({ groupId: '..', offsets: [{ topic: TOPIC, partition: 0, committedOffset: 3 }] });
    expect((await fetch(`${server.admin!.url}/group/history`)).status).toBe(400);
    // Partitions a member owns without a commit yet are listed too, with their log-end offsets and
    // '-' for the committed offset and lag (as kafka-consumer-groups --describe lists them; new-user
    // trial 27): a consumer reading from the end commits nothing until a message comes.
    const idle = kafkaClient(server.bootstrap, 'console-idle').consumer({ groupId: 'console-idle-group', sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 200 });
    consumers.push(idle);
    await idle.connect();
    await idle.subscribe({ topic: TOPIC, fromBeginning: false });
    await idle.run({ eachMessage: async () => {} });
    const idleGroup = () => server.broker.classic.allGroups().find((g) => g.groupId === 'console-idle-group');
    await waitFor(() => idleGroup()?.state === 'Stable', UI_TIMEOUT, 'the idle group stable');
    await page.evaluate(() => (location.hash = '#/groups/console-idle-group'));
    await page.locator('#partitions tbody tr').nth(1).waitFor({ timeout: UI_TIMEOUT });
    const idleMember = idleGroup()!.allMembers()[0]!.memberId;
    const logEnd = (p: number) => server.broker.topics.get(TOPIC)!.partitions[p]!.logEndOffset;
    expect([0, 1].map(logEnd)).toEqual([7n, 5n]);
    expect(await rows(page, 'partitions')).toEqual([0, 1].map((p) => [TOPIC, String(p), '-', String(logEnd(p)), '-', '-', `console-idle ${idleMember}`]));
    expect(((await (await fetch(`${server.admin!.url}/groups/console-idle-group`)).json()) as { uncommittedPartitions: unknown }).uncommittedPartitions).toEqual([0, 1].map((p) => ({ topic: TOPIC, partition: p, logEndOffset: Number(logEnd(p)), memberId: idleMember })));
    // A classic group's protocol type shows (Kafka Connect's groups say `connect`; new-user trial 25).
    expect(await page.locator('#group-meta').textContent()).toMatch(/^classic group · state Stable · generation \d+ · protocol type consumer · protocol RoundRobinAssigner · leader /);
    expect(server.broker.offsets.offsetsOf('console-idle-group')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows a share group: its member, and per share partition the start and end offsets, lag and records by state', async () => {
    // Manual clock: the member's session and its records' acquisition locks last however long the
    // browser takes on a loaded machine.
    const shared = await startTestServer({ adminPort: 0, clock: 'manual', config: SHARE_TEST_CONFIG });
    const raw = await RawClient.connect(shared.port);
    try {
      const { member } = await shareGroupHolding(shared, raw, 'console-share', 'console-share-topic');
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${shared.admin!.url}/#/groups/console-share`);
      await page.locator('#group-meta').getByText('share group · state Stable').waitFor({ timeout: UI_TIMEOUT });
      // "console-share".hashCode() is -1731941399: 1731941399 % 50 (offsets.topic.num.partitions) = 49.
      expect(await page.locator('#group-meta').textContent()).toMatch(/ · records in __consumer_offsets-49$/);
      expect((await rows(page, 'members')).map((r) => [r[0], r[3], r[5], r[6]])).toEqual([[member, '3', 'console-share-topic', expect.stringContaining('console-share-topic')]]);
      expect(await rows(page, 'partitions')).toEqual([0, 1].map((p) => ['console-share-topic', String(p), '0', '4', '5', '5', '5', '0', '0', '0']));
      // No lag samples (a share group commits no offsets): a sentence, not an empty chart from 1970.
      expect(await page.locator('#lag-chart').innerText()).toBe('A share group commits no offsets: its lag is per share partition, above.');
      expect(await page.locator('#lag-chart canvas').count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, 'share-group.png'), fullPage: true });
      await page.close();
    } finally {
      raw.socket.destroy();
      await shared.stop();
    }
  });

  it("shows a streams group (KIP-1071): its epochs, and each member's process, epoch, state and tasks", async () => {
    const streams = await startTestServer({ adminPort: 0, clock: 'manual', config: STREAMS_TEST_CONFIG });
    const raw = await RawClient.connect(streams.port);
    try {
      const created = await raw.send(19, 5, { topics: [{ name: 'in', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
      expect(created.topics[0]!.errorCode).toBe(0);
      const joined = await raw.send(88, 0, streamsJoin('console-streams', 'm1', 'p1'));
      await internalTopicsCreated(streams);
      expect(activeOf(await raw.send(88, 0, streamsBeat('console-streams', 'm1', joined.memberEpoch, {})))).toEqual({ '0': [0, 1], '1': [0, 1] });
      await streams.broker.runtime.flush();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${streams.admin!.url}/#/groups/console-streams`);
      await page.locator('#group-meta').getByText('streams group · state Stable').waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('#group-meta').textContent()).toMatch(/^streams group · state Stable · group epoch 3 · assignment epoch 3 · assignor sticky · /);
      expect((await rows(page, 'members')).map((r) => [r[0], r[3], r[4], r[5], r[7], r[8]])).toEqual([['m1', 'p1', '3', 'stable', '0_0 0_1 1_0 1_1', '-']]);
      await page.screenshot({ path: join(SHOTS, 'streams-group.png'), fullPage: true });
      await page.close();
    } finally {
      raw.socket.destroy();
      await streams.stop();
    }
  });

  it('lists a kafkajs transaction while it is open (its partitions, the offsets it sent) and follows its commit live', async () => {
    const txServer = await startTestServer({ adminPort: 0 });
    const kafka = kafkaClient(txServer.bootstrap, 'console-txn-producer');
    const txProducer = kafka.producer({ transactionalId: 'console-txn', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 45_000 });
    try {
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'console-txn-topic', numPartitions: 2 }] });
      await admin.disconnect();
      await txProducer.connect();
      const txn = await txProducer.transaction();
      await txn.send({ topic: 'console-txn-topic', messages: [{ value: 'a', partition: 1 }, { value: 'b', partition: 1 }] });
      await txn.sendOffsets({ consumerGroupId: 'console-txn-group', topics: [{ topic: 'console-txn-topic', partitions: [{ partition: 0, offset: '7' }] }] });
      const { producerId, producerEpoch } = txServer.broker.transactions.get('console-txn')!;

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      await page.goto(`${txServer.admin!.url}/#/transactions`);
      await page.locator('#transactions').getByText('Ongoing').waitFor({ timeout: UI_TIMEOUT });
      await page.locator('#live:not(.off)').waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('nav a.current').innerText()).toBe('Transactions');
      // "console-txn-group".hashCode() is 1508252774: 1508252774 % 50 (offsets.topic.num.partitions) = 24.
      const [row] = await rows(page, 'transactions');
      expect(row).toEqual([
        'console-txn', 'Ongoing', String(producerId), String(producerEpoch), '45000', expect.stringMatching(/^\d{4}-\d\d-\d\d /), expect.stringMatching(/^\d{4}-\d\d-\d\d /), '1',
        '__consumer_offsets [24]; console-txn-topic [1]',
      ]);

      await page.locator('#transactions').getByRole('link', { name: 'console-txn' }).click();
      await page.locator('#transaction-offsets').waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('#transaction-header').innerText()).toMatch(new RegExp(`^Ongoing · producer id ${producerId} · epoch ${producerEpoch} · timeout 45000 ms · `));
      expect(await rows(page, 'transaction-partitions')).toEqual([['__consumer_offsets', '24'], ['console-txn-topic', '1']]);
      expect(await rows(page, 'transaction-offsets')).toEqual([['console-txn-group', 'console-txn-topic', '0', '7', '-']]);
      await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });

      // Committed: the page follows without a reload (the change notice), the offsets no longer pending.
      await txn.commit();
      await page.locator('#transaction-header').getByText(/^CompleteCommit · /).waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('#transaction-partitions').innerText()).toBe('none');
      expect(await page.locator('#transaction-offsets').innerText()).toBe('none');
      await page.locator('nav').getByText('Transactions').click();
      await page.locator('#transactions').getByText('CompleteCommit').waitFor({ timeout: UI_TIMEOUT });
      expect((await rows(page, 'transactions')).map((r) => [r[0], r[1], r[8]])).toEqual([['console-txn', 'CompleteCommit', 'none']]);
      expect(pageErrors).toEqual([]);
      await page.close();
    } finally {
      await txProducer.disconnect().catch(() => {});
      await txServer.stop();
    }
  });

  it('lists the first 1,000 transactional ids by id and says how many there are', async () => {
    const many = await startTestServer({ adminPort: 0, inMemory: true });
    const raws = await Promise.all(Array.from({ length: 5 }, () => RawClient.connect(many.port)));
    try {
      const IDS = 1005;
      await Promise.all(raws.map(async (raw, c) => {
        for (let i = c; i < IDS; i += raws.length) await initProducer(raw, `many-${String(i).padStart(4, '0')}`);
      }));
      const page = await browser.newPage();
      await page.goto(`${many.admin!.url}/#/transactions`);
      await page.locator('#transactions-meta').getByText(/The first 1000 of 1005 by id are listed/).waitFor({ timeout: UI_TIMEOUT });
      const listed = await rows(page, 'transactions');
      expect([listed.length, listed[0]![0], listed.at(-1)![0]]).toEqual([1000, 'many-0000', 'many-0999']);
      await page.close();
    } finally {
      for (const raw of raws) raw.socket.destroy();
      await many.stop();
    }
  });

  it("drops a failed refresh's message once the server answers again (a page that refills only part of itself)", async () => {
    const { dir, remove } = tempDataDir('kmc-console-restart-');
    let up = await startTestServer({ adminPort: 0, dataDir: dir });
    const adminPort = up.admin!.port;
    try {
      const raw = await RawClient.connect(up.port);
      await initProducer(raw, 'console-restart-txn');
      raw.socket.destroy();
      const page = await browser.newPage();
      await page.goto(`${up.admin!.url}/#/transactions/console-restart-txn`);
      await page.locator('#transaction-header').getByText(/^Empty · /).waitFor({ timeout: UI_TIMEOUT });
      await page.locator('#live:not(.off)').waitFor({ timeout: UI_TIMEOUT });
      await up.stop();
      // Opening another id's page while the server is down: its refresh fails.
      await page.evaluate(() => (location.hash = '#/transactions/console-restart-other'));
      await page.locator('main > p.error').getByText(/^Could not load: /).waitFor({ timeout: UI_TIMEOUT });
      // The same admin port again, the same data: the event stream reconnects and the page refreshes.
      up = await startTestServer({ adminPort, dataDir: dir });
      await page.locator('#live:not(.off)').waitFor({ timeout: UI_TIMEOUT });
      await page.getByText('No transactional id "console-restart-other" (yet, or expired).').waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('main > p.error').count()).toBe(0);
      await page.close();
    } finally {
      await up.stop().catch(() => {});
      remove();
    }
  });

  it('shows which members of a consumer group are classic (JoinGroup inside a KIP-848 group) and which heartbeat', async () => {
    const mixed = await startTestServer({ adminPort: 0, config: KIP848_CONFIG });
    const raw = await RawClient.connect(mixed.port);
    try {
      await createTopic(raw, 'mixed-topic', 2);
      const G = 'console-mixed';
      expect((await raw.send(68, 1, hb(G, 'console-consumer-member', 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['mixed-topic'], topicPartitions: [] }))).errorCode).toBe(ErrorCode.NONE);
      const meta = new Writer();
      meta.int16(1);
      Sub.encode(meta, 1, { topics: ['mixed-topic'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
      const join = await raw.send(11, 5, {
        groupId: G, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId: '', groupInstanceId: 'console-classic', protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: meta.finish() }], reason: null,
      });
      expect(join.errorCode).toBe(ErrorCode.NONE);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${mixed.admin!.url}/#/groups/${G}`);
      await page.locator('#members tbody tr').nth(1).waitFor({ timeout: UI_TIMEOUT });
      const members = await rows(page, 'members');
      expect(members.map((r) => [r[0], r[1], r[4]]).sort()).toEqual([
        ['console-consumer-member', '-', 'consumer'],
        [join.memberId, 'console-classic', 'classic'],
      ].sort());
      // Both run a session timer: the KIP-848 member's the group's (45 s), the classic member's its JoinGroup's (30 s).
      const described = (await (await fetch(`${mixed.admin!.url}/groups/${G}`)).json()) as { members: Array<{ memberId: string; sessionExpiresInMs: number }> };
      const expiry = new Map(described.members.map((m) => [m.memberId, m.sessionExpiresInMs]));
      expect(expiry.get('console-consumer-member')).toBeGreaterThan(30_000);
      expect(expiry.get('console-consumer-member')).toBeLessThanOrEqual(45_000);
      expect(expiry.get(join.memberId)).toBeGreaterThan(0);
      expect(expiry.get(join.memberId)).toBeLessThanOrEqual(30_000);
      await page.close();
    } finally {
      raw.socket.destroy();
      await mixed.stop();
    }
  });

  it('shows the invisible characters of client ids and rebalance reasons as escapes (a right-to-left override reads a name backwards)', async () => {
    const odd = await startTestServer({ adminPort: 0 });
    const first = await RawClient.connect(odd.port);
    const second = await RawClient.connect(odd.port);
    try {
      await createTopic(first, 'odd-topic', 1);
      const G = 'console-odd';
      const CLIENT = 'shop\u202Egnp.exe';
      const REASON = 'poll\u0007 timeout\u2066x\u2069 soft\u00ADhyphen\u2028tag\u{E0041}filler\u3164';
      const meta = new Writer();
      meta.int16(0);
      Sub.encode(meta, 0, { topics: ['odd-topic'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
      const join = (raw: RawClient, memberId: string) => raw.send(11, 9, {
        groupId: G, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: meta.finish() }], reason: REASON,
      }, CLIENT);
      const id1 = (await join(first, '')).memberId;
      expect((await join(first, id1)).errorCode).toBe(ErrorCode.NONE);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${odd.admin!.url}/#/groups/${G}`);
      await page.locator('#members tbody tr').first().waitFor({ timeout: UI_TIMEOUT });
      expect((await rows(page, 'members'))[0]![2]).toBe('shop\\u202Egnp.exe');
      // A second member joins with the reason, the first rejoins: generation 2, with the client's reason.
      const id2 = (await join(second, '')).memberId;
      const secondJoined = join(second, id2);
      expect((await join(first, id1)).generationId).toBe(2);
      expect((await secondJoined).generationId).toBe(2);
      const rebalance = page.locator('#timeline li.rebalance').filter({ hasText: 'generation/epoch 2' });
      await rebalance.waitFor({ timeout: UI_TIMEOUT });
      expect(await rebalance.innerText()).toContain(`adding new member ${id2.replace('\u202E', '\\u202E')} with group instance id none; client reason: poll\\u0007 timeout\\u2066x\\u2069 soft\\u00ADhyphen\\u2028tag\\u{E0041}filler\\u3164`);
      // No character of the page's text is one of them.
      expect(await page.evaluate(() => /[\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000B-\u001F\u007F-\u009F\u3164]/u.test(document.body.innerText))).toBe(false);
      await page.close();
    } finally {
      first.socket.destroy();
      second.socket.destroy();
      await odd.stop();
    }
  });

  it("shows each member's time to session expiry on the server clock, and follows a manual clock's advance", async () => {
    const manual = await startTestServer({ adminPort: 0, clock: 'manual', config: { 'group.initial.rebalance.delay.ms': 0 } });
    const raw = await RawClient.connect(manual.port);
    try {
      await createTopic(raw, 'expiry-topic', 1);
      const G = 'console-expiry';
      const meta = new Writer();
      meta.int16(0);
      Sub.encode(meta, 0, { topics: ['expiry-topic'], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
      const join = (memberId: string) => raw.send(11, 9, {
        groupId: G, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: meta.finish() }], reason: null,
      });
      const joined = await join((await join('')).memberId);
      expect(joined.errorCode).toBe(ErrorCode.NONE);
      const sync = await raw.send(14, 5, { groupId: G, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] });
      expect(sync.errorCode).toBe(ErrorCode.NONE);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${manual.admin!.url}/#/groups/${G}`);
      await page.locator('#members tbody tr').first().waitFor({ timeout: UI_TIMEOUT });
      expect((await rows(page, 'members'))[0]![5]).toBe('30.0 s');
      expect((await (await fetch(`${manual.admin!.url}/groups/${G}`)).json()).members[0].sessionExpiresInMs).toBe(30000);
      await manual.clock.advance(12_500);
      await page.locator('#members').getByText('17.5 s', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
      await page.close();
    } finally {
      raw.socket.destroy();
      await manual.stop();
    }
  });

  it('under a stream of commits, refreshes a group page at most once a second, and keeps following them', async () => {
    const watched = await startTestServer({ adminPort: 0 });
    const raw = await RawClient.connect(watched.port);
    await createTopic(raw, 'streamed-topic');
    let committing = true;
    let offset = 0n;
    const commits = (async () => {
      // A commit every few ms: the group watch tells the page of a change after each look (every ~100 ms).
      while (committing) {
        offset++;
        const res = await raw.send(8, 8, { groupId: 'streamed', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'streamed-topic', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] } as never);
        expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      const page = await browser.newPage();
      // When the page asks for the group (its own fetch calls, by the page's clock).
      await page.addInitScript(() => {
        const calls: number[] = [];
        const original = window.fetch.bind(window);
        (window as unknown as { groupFetches: number[] }).groupFetches = calls;
        window.fetch = (input, init) => {
          if (String(input instanceof Request ? input.url : input).includes('/group?groupId=streamed')) calls.push(performance.now());
          return original(input, init);
        };
      });
      await page.goto(`${watched.admin!.url}/#/groups/streamed`);
      await page.locator('#group-meta').getByText('state Empty').waitFor({ timeout: UI_TIMEOUT });
      const starts = (): Promise<number[]> => page.evaluate(() => [...(window as unknown as { groupFetches: number[] }).groupFetches]);
      // Four refreshes for live changes after the first.
      await vi.waitFor(async () => expect((await starts()).length).toBeGreaterThanOrEqual(5), { timeout: UI_TIMEOUT, interval: 200 });
      committing = false;
      await commits;
      const times = await starts();
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      // Without the spacing, a refresh followed each look that saw the commits (~100 ms apart).
      // Each refresh's fetch comes microseconds after its start, unless the page is held up in
      // between (a loaded machine): a gap may then look shorter by that delay, the sum of them
      // by the first one's only.
      for (const gap of gaps) expect(gap).toBeGreaterThan(LIVE_REFRESH_MIN_MS / 2);
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(gaps.length * LIVE_REFRESH_MIN_MS - LIVE_REFRESH_MIN_MS / 2);
      // And it still follows: the committed offset shown is one the stream made.
      const shown = Number((await rows(page, 'partitions'))[0]![2]);
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThanOrEqual(Number(offset));
      await page.close();
    } finally {
      committing = false;
      await commits.catch(() => {});
      raw.socket.destroy();
      await watched.stop();
    }
  });

  it('asks for the token when the admin API needs one, and works with it', async () => {
    const guarded = await startTestServer({ adminPort: 0, adminToken: 'console-secret' });
    try {
      const page = await browser.newPage();
      await page.goto(`${guarded.admin!.url}/`);
      await page.locator('#token-input').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // Only the form: no empty sections of a page it cannot load yet.
      expect(await page.locator('#main').isVisible()).toBe(false);
      await page.fill('#token-input', 'wrong');
      await page.click('#token-form button');
      await page.locator('#token-error').getByText('That token was refused.').waitFor({ timeout: UI_TIMEOUT });
      expect(await page.locator('#main').isVisible()).toBe(false);
      await page.fill('#token-input', 'console-secret');
      await page.click('#token-form button');
      await page.locator('#brokers').getByText(`localhost:${guarded.port}`).waitFor({ timeout: UI_TIMEOUT });
      await page.locator('#live:not(.off)').waitFor({ timeout: UI_TIMEOUT });
      // A change made with the token (a rule from the faults page) passes the guard too.
      await page.locator('nav').getByText('Faults').click();
      await page.locator('#add-rule').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // A system clock: the manual clock's form stays hidden (a style rule once overrode `hidden`).
      await page.locator('#clock-now').getByText(/^system clock: /).waitFor({ timeout: UI_TIMEOUT });
      await page.getByText('Start the server with --clock manual to move time by hand.').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      expect(await page.locator('#clock-advance').isVisible()).toBe(false);
      await page.fill('#rule-api', 'Produce');
      await page.fill('#rule-error', 'NOT_LEADER_OR_FOLLOWER');
      await page.click('#add-rule button[type=submit]');
      await page.locator('#rule-message').getByText(/Added rule f\d+/).waitFor({ timeout: UI_TIMEOUT });
      expect(guarded.faults.list().map((r) => r.match)).toEqual([{ nth: 1, apiKey: 0, api: 'Produce' }]);
      // A hang's ms is how long until it closes the connection; close after handling is a choice of its own.
      await page.fill('#rule-api', 'Fetch');
      await page.selectOption('#rule-action', 'hang');
      await page.fill('#rule-ms', '5000');
      await page.click('#add-rule button[type=submit]');
      await vi.waitFor(() => expect(guarded.faults.list()).toHaveLength(2), { timeout: UI_TIMEOUT });
      await page.selectOption('#rule-action', 'close-after');
      await page.click('#add-rule button[type=submit]');
      await vi.waitFor(() => expect(guarded.faults.list()).toHaveLength(3), { timeout: UI_TIMEOUT });
      expect(guarded.faults.list().map((r) => r.action)).toEqual([
        { type: 'error', error: 'NOT_LEADER_OR_FOLLOWER', errorCode: 6 },
        { type: 'hang', closeAfterMs: 5000 },
        { type: 'close', when: 'after' },
      ]);
      await page.close();
    } finally {
      await guarded.stop();
    }
  });
});
