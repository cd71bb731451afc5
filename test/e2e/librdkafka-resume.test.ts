/**
 * End to end with librdkafka (Python confluent-kafka, pinned by .ci/run), classic and KIP-848
 * (`group.protocol=consumer`) consumer groups: the scenario of test/e2e/clients/group-resume.ts
 * (produce, consume in a group, commit synchronously, close, a new consumer resumes at the
 * committed offsets), driven by test/e2e/clients/librdkafka_resume.py. The API versions it used go
 * to test/clients/api-versions/librdkafka.json.
 *
 * The interpreter is $KMC_PYTHON, else ./.venv-ci/bin/python if present, else `python3`; it needs
 * confluent-kafka. A missing interpreter or package is a failure, never a skip.
 */
import { spawn, spawnSync } from 'node:child_process';
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
import { PYTHON, PYTHON_CLIENTS_HINT, runPythonClient, type PythonClientResult } from '../support/python.js';

const SCRIPT = join(REPO_ROOT, 'test', 'e2e', 'clients', 'librdkafka_resume.py');

/** Checked before any server starts (spawnSync would block the in-process server). */
function clientVersions(): { confluentKafka: string; librdkafka: string } {
  const probe = spawnSync(PYTHON, ['-c', 'import confluent_kafka as c; print(c.__version__); print(c.libversion()[0])'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? probe.error.message : (probe.stderr || '').trim().split('\n').pop();
    throw new Error(`librdkafka e2e test needs ${PYTHON} with confluent-kafka (${why}). ${PYTHON_CLIENTS_HINT}`);
  }
  const [confluentKafka = '?', librdkafka = '?'] = probe.stdout.trim().split('\n');
  return { confluentKafka, librdkafka };
}

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

const versions = clientVersions();
const CLIENT_VERSION = `${versions.librdkafka} (confluent-kafka ${versions.confluentKafka})`;
const recorded: Array<[GroupProtocol, ApiVersionRecorder]> = [];

afterAll(() => {
  for (const [protocol, recorder] of recorded) writeApiVersions('librdkafka', CLIENT_VERSION, protocol, recorder);
});

describe(`librdkafka ${CLIENT_VERSION} against the server`, () => {
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
