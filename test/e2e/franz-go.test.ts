/**
 * End to end with franz-go (kgo), classic and KIP-848 consumer groups: the scenario of
 * test/e2e/clients/group-resume.ts (produce, consume in a group, commit, close, a new consumer
 * resumes at the committed offsets), driven by the Go program test/clients/go (go.mod pins the
 * franz-go version). The API versions it used go to test/clients/api-versions/franz-go.json.
 *
 * The binary is $KMC_FRANZ_GO_BIN if set, else test/support/provision.ts builds it with `go build`
 * into .tmp/bin (modules come from the Go module proxy on first use); without Go the suite is skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  REPO_ROOT,
  runGroupResumeScenario,
  writeApiVersions,
  type ClientDriver,
  type GroupProtocol,
} from './clients/group-resume.js';
import { FRANZ_GO_BINARY as BINARY, runFranzGo as runGo } from '../support/franz-go.js';

const GO_DIR = join(REPO_ROOT, 'test', 'clients', 'go');
const FRANZ_GO_VERSION = /github\.com\/twmb\/franz-go (v\S+)/.exec(readFileSync(join(GO_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';

const driver: ClientDriver = {
  clientIdPrefix: 'kmc-franz-go',
  async produce({ bootstrap, topic, count, keyPrefix }) {
    const r = await runGo(['-mode', 'produce', '-bootstrap', bootstrap, '-topic', topic, '-count', String(count), '-partitions', '3', '-key-prefix', keyPrefix, '-client-id', 'kmc-franz-go-producer']);
    return { produced: r.produced ?? {} };
  },
  async consume({ bootstrap, topic, group, count, protocol, round }) {
    const r = await runGo([
      '-mode', 'consume', '-bootstrap', bootstrap, '-topic', topic, '-group', group, '-count', String(count),
      '-protocol', protocol, '-client-id', `kmc-franz-go-consumer-${round}`,
    ]);
    // The client's own view of its commit must match what OffsetFetch returns.
    expect((r.clientCommitted ?? []).map(({ partition, offset }) => ({ partition, offset })), JSON.stringify(r)).toEqual((r.committed ?? []).map(({ partition, offset }) => ({ partition, offset })));
    for (const c of r.committed ?? []) expect(c.error, JSON.stringify(r)).toBeNull();
    return { records: r.records ?? [], committed: (r.committed ?? []).map(({ partition, offset }) => ({ partition, offset })) };
  },
};

const recorded: Array<[GroupProtocol, Awaited<ReturnType<typeof runGroupResumeScenario>>['recorder']]> = [];

afterAll(() => {
  for (const [protocol, recorder] of recorded) writeApiVersions('franz-go', FRANZ_GO_VERSION, protocol, recorder);
});

describe.skipIf(BINARY === null)(`franz-go ${FRANZ_GO_VERSION} (kgo) against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'franz-classic', group: 'franz-classic-group' });
    recorded.push(['classic', recorder]);
  }, 300_000);

  it('KIP-848 consumer group (kgo.ServerSideBalancer): same scenario over ConsumerGroupHeartbeat', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'consumer', { topic: 'franz-848', group: 'franz-848-group' });
    recorded.push(['consumer', recorder]);
  }, 300_000);
});
