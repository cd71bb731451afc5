/**
 * End to end with librdkafka (Python confluent-kafka, pinned in test/support/clients.ts), classic and KIP-848
 * (`group.protocol=consumer`) consumer groups: the scenario of test/e2e/clients/group-resume.ts
 * (produce, consume in a group, commit synchronously, close, a new consumer resumes at the
 * committed offsets), driven by test/e2e/clients/librdkafka_resume.py. The API versions it used go
 * to test/clients/api-versions/librdkafka.json.
 *
 * The interpreter and its confluent-kafka come from test/support/provision.ts; without python3 on
 * the machine the suite is skipped.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  REPO_ROOT,
  runGroupResumeScenario,
  writeApiVersions,
  type ApiVersionRecorder,
  type ClientDriver,
  type ClientRecord,
  type GroupProtocol,
  type PartitionOffset,
} from './clients/group-resume.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';

const SCRIPT = join(REPO_ROOT, 'test', 'e2e', 'clients', 'librdkafka_resume.py');

interface PyResult extends PythonClientResult {
  produced?: Record<string, number>;
  records?: ClientRecord[];
  committed?: Array<PartitionOffset & { error: string | null }>;
  commitResult?: Array<PartitionOffset & { error: string | null }>;
}

async function runClient(args: string[]): Promise<PyResult> {
  const debug = process.env['KMC_LIBRDKAFKA_DEBUG'];
  return runPythonClient<PyResult>('librdkafka', [SCRIPT, ...args, '--timeout', '30', ...(debug ? ['--debug', debug] : [])], 45_000);
}

const strip = (xs: Array<PartitionOffset & { error: string | null }> | undefined): PartitionOffset[] =>
  (xs ?? []).map(({ partition, offset }) => ({ partition, offset }));

const driver: ClientDriver = {
  clientIdPrefix: 'kmc-librdkafka',
  async produce({ bootstrap, topic, count, keyPrefix }) {
    const r = await runClient(['produce', '--bootstrap', bootstrap, '--topic', topic, '--count', String(count), '--key-prefix', keyPrefix, '--client-id', 'kmc-librdkafka-producer']);
    return { produced: r.produced ?? {} };
  },
  async consume({ bootstrap, topic, group, count, protocol, round }) {
    const r = await runClient([
      'consume', '--bootstrap', bootstrap, '--topic', topic, '--group', group, '--count', String(count),
      '--protocol', protocol, '--client-id', `kmc-librdkafka-consumer-${round}`,
    ]);
    // commit(asynchronous=False) returned the offsets it committed, without error, and committed() reads them back.
    for (const c of [...(r.commitResult ?? []), ...(r.committed ?? [])]) expect(c.error, JSON.stringify(r)).toBeNull();
    expect(strip(r.commitResult), JSON.stringify(r)).toEqual(strip(r.committed));
    return { records: r.records ?? [], committed: strip(r.committed) };
  },
};

const CLIENT_VERSION = python === null ? 'not installed' : `${python.librdkafka} (confluent-kafka ${python.confluentKafka})`;
const recorded: Array<[GroupProtocol, ApiVersionRecorder]> = [];

afterAll(() => {
  for (const [protocol, recorder] of recorded) writeApiVersions('librdkafka', CLIENT_VERSION, protocol, recorder);
});

describe.skipIf(python === null)(`librdkafka ${CLIENT_VERSION} against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'rdk-classic', group: 'rdk-classic-group' });
    recorded.push(['classic', recorder]);
    const apis = recorder.versions();
    expect(Object.keys(apis)).toEqual(expect.arrayContaining(['JoinGroup', 'SyncGroup', 'OffsetCommit', 'OffsetFetch', 'LeaveGroup']));
    expect(apis['ConsumerGroupHeartbeat']).toBeUndefined();
  }, 180_000);

  it('KIP-848 consumer group (group.protocol=consumer): same scenario over ConsumerGroupHeartbeat', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'consumer', { topic: 'rdk-848', group: 'rdk-848-group' });
    recorded.push(['consumer', recorder]);
    const apis = recorder.versions();
    expect(Object.keys(apis)).toEqual(expect.arrayContaining(['ConsumerGroupHeartbeat', 'OffsetCommit', 'OffsetFetch']));
    expect(apis['JoinGroup']).toBeUndefined();
    expect(apis['SyncGroup']).toBeUndefined();
  }, 180_000);
});
